# Source this file (bash) to run pulumi against this repository with offline-safe defaults:
#   source scripts/env.sh
# Every variable can be overridden by setting it before sourcing.
_ma_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# .tools/bin first (the CLI set-up built), then the virtualenv: the Python language host runs the `python3` it
# finds, and the dynamic-provider plugin honours PULUMI_PYTHON_CMD.
export PATH="$_ma_root/.tools/bin:$_ma_root/.venv/bin:$PATH"
export PULUMI_PYTHON_CMD="${PULUMI_PYTHON_CMD:-$_ma_root/.venv/bin/python}"

# Nothing reaches the internet: no update checks, no plugin downloads, a local state backend.
export PULUMI_SKIP_UPDATE_CHECK=true
export PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true
# Plugins come from the CLI's own directory and Pulumi.yaml's `plugins:` block, never from PATH: the Python
# language host takes the `pulumi-modelarts` distribution for a provider SDK unless its pulumi-plugin.json says
# otherwise, and it looks for that file in site-packages, where an editable install (this .venv) has none; the
# engine would then pick pulumi-resource-modelarts up from PATH and warn on every command of a dynamic stack.
export PULUMI_IGNORE_AMBIENT_PLUGINS="${PULUMI_IGNORE_AMBIENT_PLUGINS:-true}"
export PULUMI_BACKEND_URL="${PULUMI_BACKEND_URL:-file://$_ma_root/.pulumi-state}"
export PULUMI_HOME="${PULUMI_HOME:-$_ma_root/.pulumi-state/.home}"
# The demo's passphrase for the local secrets provider. Use your own (or a cloud secrets provider) for real stacks.
export PULUMI_CONFIG_PASSPHRASE="${PULUMI_CONFIG_PASSPHRASE-modelarts-demo}"
mkdir -p "$_ma_root/.pulumi-state"
unset _ma_root
