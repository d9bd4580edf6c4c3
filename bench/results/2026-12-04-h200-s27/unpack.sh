#!/bin/bash
# (Session 26's script.) Unpacks the carried binaries (.device/bins.tar.xz: histosort-old, histosort-new, tests/...).
cd "$(dirname "$0")/../../.."
python3 -c "import tarfile; tarfile.open('.device/bins.tar.xz').extractall('.device')"
chmod +x .device/histosort-* .device/gpu_* .device/tests/* 2>/dev/null; true
ls -la .device .device/tests
