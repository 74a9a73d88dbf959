"""Known-item corpus: 10 German and 10 French documentation paragraphs, each with a query that
asks for it in other inflected forms of its words (written for groundkit's tests)."""

from __future__ import annotations

__all__ = ["FRENCH", "GERMAN"]

GERMAN: list[tuple[str, str, str]] = [
    (
        "installation.txt",
        "Die Installation des Pakets erfolgt über den Paketmanager. Nach dem Herunterladen "
        "werden alle Abhängigkeiten automatisch aufgelöst und in das virtuelle Verzeichnis "
        "kopiert.",
        "Paket installieren und Abhängigkeit auflösen",
    ),
    (
        "konfiguration.txt",
        "Jede Konfigurationsdatei enthält Schlüssel und Werte. Geänderte Einstellungen werden "
        "beim nächsten Neustart des Dienstes gelesen, fehlerhafte Werte werden abgelehnt.",
        "geänderte Einstellung und fehlerhafter Wert",
    ),
    (
        "sicherung.txt",
        "Regelmäßige Sicherungen schützen die Datenbank vor Verlusten. Eine Sicherung wird "
        "komprimiert gespeichert und kann mit einem einzigen Befehl wiederhergestellt werden.",
        "gesicherte Datenbanken komprimieren",
    ),
    (
        "benutzer.txt",
        "Administratoren legen neue Benutzer an und vergeben Rollen. Gesperrte Konten können "
        "erst nach der Prüfung durch einen zweiten Administrator entsperrt werden.",
        "Benutzers Rolle sperren",
    ),
    (
        "protokoll.txt",
        "Das Protokoll speichert jede Anmeldung mit Zeitstempel. Ältere Einträge werden nach "
        "dreißig Tagen gelöscht, damit die Protokolldateien klein bleiben.",
        "Anmeldungen im Protokolle löschen",
    ),
    (
        "netzwerk.txt",
        "Der Dienst lauscht standardmäßig auf allen Netzwerkschnittstellen. Firewalls sollten "
        "eingehende Verbindungen nur aus vertrauenswürdigen Netzen erlauben.",
        "eingehender Verbindung erlaubt",
    ),
    (
        "aktualisierung.txt",
        "Aktualisierungen werden signiert ausgeliefert. Vor dem Einspielen prüft das Programm "
        "die Signatur und bricht bei einer ungültigen Prüfsumme ab.",
        "signierte Aktualisierung prüfen",
    ),
    (
        "speicher.txt",
        "Der Zwischenspeicher hält häufig gelesene Seiten im Arbeitsspeicher. Wird der Speicher "
        "knapp, verdrängt der Dienst die am längsten ungenutzten Seiten.",
        "häufige Seite lesen",
    ),
    (
        "fehler.txt",
        "Bei einem Fehler schreibt die Anwendung eine Meldung mit Fehlercode. Wiederholte "
        "Fehler lösen eine Benachrichtigung an das Betriebsteam aus.",
        "wiederholter Fehlers Meldungen",
    ),
    (
        "schnittstelle.txt",
        "Die Programmierschnittstelle liefert Antworten im JSON-Format. Anfragen ohne gültiges "
        "Token werden mit dem Statuscode 401 beantwortet.",
        "gültige Anfrage beantworten",
    ),
]

FRENCH: list[tuple[str, str, str]] = [
    (
        "installation.txt",
        "L'installation du paquet se fait avec le gestionnaire de paquets. Toutes les "
        "dépendances sont téléchargées puis copiées dans l'environnement virtuel.",
        "installer les paquets et télécharger la dépendance",
    ),
    (
        "configuration.txt",
        "Chaque fichier de configuration contient des clés et des valeurs. Les paramètres "
        "modifiés sont relus au prochain redémarrage du service.",
        "paramètre modifié relire",
    ),
    (
        "sauvegarde.txt",
        "Les sauvegardes régulières protègent la base de données contre les pertes. Une "
        "sauvegarde compressée peut être restaurée avec une seule commande.",
        "sauvegarder et restaurer une base",
    ),
    (
        "utilisateurs.txt",
        "Les administrateurs créent les nouveaux utilisateurs et attribuent les rôles. Un "
        "compte bloqué ne peut être débloqué qu'après vérification.",
        "utilisateur bloquer le compte",
    ),
    (
        "journal.txt",
        "Le journal enregistre chaque connexion avec son horodatage. Les entrées anciennes "
        "sont supprimées après trente jours pour limiter la taille des journaux.",
        "connexions enregistrées supprimer",
    ),
    (
        "reseau.txt",
        "Le service écoute par défaut sur toutes les interfaces réseau. Les pare-feu doivent "
        "autoriser uniquement les connexions entrantes des réseaux de confiance.",
        "autorisation des interfaces entrante",
    ),
    (
        "mises-a-jour.txt",
        "Les mises à jour sont livrées signées. Avant l'installation, le programme vérifie la "
        "signature et s'arrête si la somme de contrôle est invalide.",
        "vérifier les signatures livrées",
    ),
    (
        "cache.txt",
        "Le cache conserve en mémoire les pages fréquemment lues. Lorsque la mémoire devient "
        "insuffisante, le service évince les pages les moins utilisées.",
        "page fréquente mémoires",
    ),
    (
        "erreurs.txt",
        "En cas d'erreur, l'application écrit un message avec un code d'erreur. Les erreurs "
        "répétées déclenchent une notification à l'équipe d'exploitation.",
        "erreur répétée déclencher notifications",
    ),
    (
        "api.txt",
        "L'interface de programmation renvoie des réponses au format JSON. Les requêtes sans "
        "jeton valide reçoivent le code de statut 401.",
        "requête valide répondre",
    ),
]
