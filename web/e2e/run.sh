#!/usr/bin/env bash
# The browser check of `groundkit build-site` (tox -e web; by hand: bash web/e2e/run.sh [--measure]):
# 1. npm ci: playwright-core, Pyodide and onnxruntime-web, pinned by package-lock.json (no browser download)
# 2. node --test tests/web: the code-point <-> UTF-16 conversion of the app (offsets.js)
# 3. `groundkit build-site sample --embedder hash` into web/e2e/build/site, with the Pyodide
#    runtime copied in
#    and again with --snapshot into web/e2e/build/snap, and with --embedder minilm --ort-dir
#    (semantic search in the page) into web/e2e/build/sem
#    and Django's documentation (the Django 5.2 sdist from PyPI, downloaded once into
#    web/e2e/build/django-sdist) into web/e2e/build/django, as its owner ships it
# 4. site-test.mjs: the sites in Debian's headless chromium, served on 127.0.0.1, offline
# PYTHON selects the Python with groundkit installed (default: python3); CHROMIUM the browser
# (default: /usr/bin/chromium; on Debian: apt-get install -y chromium). Arguments go to step 4.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
PYTHON="${PYTHON:-python3}"
BROWSER="${CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$BROWSER" ] && [ "$BROWSER" = /usr/bin/chromium ] && [ "$(id -u)" = 0 ] \
    && command -v apt-get >/dev/null; then
  # README command 2 on a fresh Debian machine: the test env installs its own browser
  echo "web/e2e/run.sh: installing Debian's chromium (apt-get install -y chromium)" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
if [ ! -x "$BROWSER" ]; then
  echo "web/e2e/run.sh: no browser at $BROWSER; install Debian's as root: apt-get install -y" \
    "chromium (or set CHROMIUM to another Chromium)" >&2
  exit 2
fi
cd "$HERE"
npm ci --no-audit --no-fund --loglevel=error
node --test "$REPO/tests/web/"
rm -rf build/site
# --embedder hash: the page then offers bm25, dense and hybrid, and step 4 checks all three
# --debug-ui --allow-local-files: the mode menu, the scores and the drop panel, which step 4
# drives; the odd-name site below is built without them and checks what a visitor sees
# --base-url --url-rule mkdocs: each result's title links to its rendered page (ADR 0048)
"$PYTHON" -m groundkit build-site sample -o build/site --pyodide-dir node_modules/pyodide --embedder hash \
  --debug-ui --allow-local-files --base-url /handbook/ --url-rule mkdocs
# --snapshot: the same sample with Pyodide's memory snapshot (made with node here); step 4 checks
# that the page restores it and answers the same
rm -rf build/snap
"$PYTHON" -m groundkit build-site sample -o build/snap --pyodide-dir node_modules/pyodide --snapshot \
  --debug-ui --allow-local-files
# --embedder minilm --ort-dir: vectors by the native ONNX embedder, and the model plus
# onnxruntime-web for the page (ADR 0035); step 4 turns semantic search on and compares
rm -rf build/sem
"$PYTHON" -m groundkit build-site sample -o build/sem --pyodide-dir node_modules/pyodide \
  --embedder minilm --ort-dir node_modules/onnxruntime-web --debug-ui
# sources named with URL syntax (?, #, %2F, %2e): each is found, shown and verified as itself
rm -rf build/odd build/odd-src && mkdir -p build/odd-src
for pair in "what?now.md:quokkaquery" "see#here.md:quokkafragment" "a%2Fb.md:quokkaslash" \
    "%2e%2e.md:quokkadots"; do
  printf '# Odd name\n\nThis page holds the word %s.\n\nA second paragraph.\n' "${pair##*:}" \
    > "build/odd-src/${pair%%:*}"
done
"$PYTHON" -m groundkit build-site build/odd-src -o build/odd --pyodide-dir node_modules/pyodide \
  --base-url /docs/ --url-rule same
# Django's docs (reST, ~660 pages): from the sdist on PyPI as bench/site_vs_pagefind.py gets them,
# kept in build/django-sdist so a re-run downloads nothing; issue 30 asks that `ingest` of them
# exits 0 (3 PDFs without the pdf extra are unsupported types, not failures) and that the site,
# built as its owner ships it (no --debug-ui, no --allow-local-files), links each result to its
# page on docs.djangoproject.com (ADR 0048); site-test.mjs checks what a visitor sees there
DJANGO_VERSION=5.2.19
DJANGO_DOCS="build/django-sdist/django-$DJANGO_VERSION/docs"
if [ ! -f "$DJANGO_DOCS/index.txt" ]; then
  rm -rf build/django-sdist && mkdir -p build/django-sdist
  "$PYTHON" -m pip download --quiet --no-deps --no-binary :all: "django==$DJANGO_VERSION" \
    -d build/django-sdist
  tar -xzf "build/django-sdist/django-$DJANGO_VERSION.tar.gz" -C build/django-sdist \
    "django-$DJANGO_VERSION/docs"
fi
rm -rf build/django-index
status=0
"$PYTHON" -m groundkit ingest "$DJANGO_DOCS" --index-dir build/django-index --quiet || status=$?
if [ "$status" -ne 0 ]; then
  echo "FAIL groundkit ingest of Django's docs exited $status, not 0" >&2
  exit 1
fi
echo "PASS groundkit ingest of Django's docs exits 0"
rm -rf build/django
"$PYTHON" -m groundkit build-site "$DJANGO_DOCS" -o build/django --pyodide-dir node_modules/pyodide \
  --title "Django documentation" --base-url https://docs.djangoproject.com/en/5.2/ \
  --url-rule sphinx-dirhtml
# a German and French site, each page declaring its language, with Pyodide's memory snapshot:
# the page stems both with Snowball (snowballstemmer rides in the site's wheel: ADR 0045)
rm -rf build/lang build/lang-src && mkdir -p build/lang-src/de build/lang-src/fr
page() { printf -- '---\nlang: %s\n---\n\n# %s\n\n%s\n' "$1" "$2" "$3" > "build/lang-src/$1/$4"; }
page de Pflege "Die Zähne werden täglich gründlich geputzt, am besten nach jeder Mahlzeit." zaehne.md
page de Garten "Im Frühling blühen die Blumen im Garten, wenn die Tage länger werden." garten.md
page fr Jardin "Au printemps, les fleurs du jardin fleurissent quand les jours rallongent." jardin.md
page fr Soins "Les dents se brossent chaque jour, de préférence après chaque repas." dents.md
"$PYTHON" -m groundkit build-site build/lang-src -o build/lang --pyodide-dir node_modules/pyodide \
  --language de,fr --snapshot
node site-test.mjs --python "$PYTHON" --site build/site --snapshot-site build/snap \
  --semantic-site build/sem --odd-site build/odd --language-site build/lang --django-site build/django --out build "$@"
