#!/bin/sh
# Creates the wa-lake namespace (when missing) and registers the search attributes operators query in the
# Web UI (architecture.md §7): WaDeliveryState, WaEventType, WaChatJid (Keyword) and WaLastHttpStatus (Int); WaSendState (Keyword, architecture.md §12).
# Runs in temporalio/admin-tools as the one-shot `temporal-setup` service of docker-compose.temporal.yml,
# and works with any `temporal` CLI on a PATH against any server. Safe to run again: it only creates what
# is missing. Keep the list in step with SEARCH_ATTRIBUTE_DEFINITIONS in workflows/contracts.ts (a unit
# test compares them).
set -eu

: "${TEMPORAL_ADDRESS:?TEMPORAL_ADDRESS (host:port of the Temporal frontend) is required}"
NAMESPACE="${TEMPORAL_NAMESPACE:-default}"
RETENTION="${TEMPORAL_NAMESPACE_RETENTION:-30d}"
export TEMPORAL_ADDRESS

echo "waiting for the Temporal frontend at ${TEMPORAL_ADDRESS}"
attempt=0
until temporal operator cluster health >/dev/null 2>&1; do
  attempt=$((attempt + 1))
  if [ "$attempt" -ge 60 ]; then
    echo "Temporal at ${TEMPORAL_ADDRESS} is not healthy after 60 attempts" >&2
    exit 1
  fi
  sleep 2
done

if temporal operator namespace describe --namespace "$NAMESPACE" >/dev/null 2>&1; then
  echo "namespace ${NAMESPACE} exists"
else
  temporal operator namespace create --namespace "$NAMESPACE" --retention "$RETENTION" \
    --description "wa-lake event delivery"
  echo "namespace ${NAMESPACE} created (retention ${RETENTION})"
fi

# A new namespace reaches the server's namespace cache a few seconds after it is created.
attempt=0
until existing="$(temporal operator search-attribute list --namespace "$NAMESPACE" 2>/dev/null)"; do
  attempt=$((attempt + 1))
  if [ "$attempt" -ge 60 ]; then
    echo "namespace ${NAMESPACE} is still not visible after 60 attempts" >&2
    exit 1
  fi
  sleep 2
done
for attribute in WaDeliveryState:Keyword WaEventType:Keyword WaChatJid:Keyword WaLastHttpStatus:Int WaSendState:Keyword; do
  name="${attribute%%:*}"
  type="${attribute#*:}"
  if printf '%s\n' "$existing" | grep -Eq "^[[:space:]]*${name}[[:space:]]"; then
    echo "search attribute ${name} exists"
  else
    temporal operator search-attribute create --namespace "$NAMESPACE" --name "$name" --type "$type"
    echo "search attribute ${name} (${type}) created"
  fi
done
echo "temporal namespace setup complete"
