#!/usr/bin/env bash
# Checks the production start: only production dependencies, `node dist/main.js`, /health answers.
# Same steps as the Dockerfile's runtime stage, in a scratch folder.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'kill "${pid:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT
cp -r "$root/package.json" "$root/package-lock.json" "$root/dist" "$root/migrations" "$root/prompts" "$root/routing-tables" "$work/"
mkdir -p "$work/src/classify" && cp -r "$root/src/classify/model" "$work/src/classify/model"
cd "$work"
npm ci --omit=dev --no-audit --no-fund --ignore-scripts >/dev/null
AUTOTIER_PORT=4999 AUTOTIER_HOST=127.0.0.1 node dist/main.js > "$work/server.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do
  if curl -fsS http://127.0.0.1:4999/health >/dev/null 2>&1; then
    echo "production start: /health answered"; exit 0
  fi
  sleep 0.1
done
echo "production start failed:"; cat "$work/server.log"; exit 1
