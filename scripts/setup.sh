#!/usr/bin/env bash
# Set up mctslab on a fresh machine: a virtualenv in .venv with the package installed.
#   scripts/setup.sh          the package and its command-line tool
#   scripts/setup.sh --dev    also the test tools, and the system programs the tests use
set -euo pipefail
cd "$(dirname "$0")/.."

extras=""
if [[ "${1:-}" == "--dev" ]]; then
    extras="[dev]"
    # graphviz's `dot` renders search trees to SVG/PNG; chromium runs the web board's
    # browser test (Debian packages; playwright drives the system chromium, never its own).
    missing=()
    command -v dot >/dev/null 2>&1 || missing+=(graphviz)
    [[ -x /usr/bin/chromium ]] || missing+=(chromium)
    if [[ ${#missing[@]} -gt 0 ]]; then
        if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
            apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null
        else
            echo "note: ${missing[*]} not installed; the tests that need them will be skipped" >&2
        fi
    fi
fi

# Debian and Ubuntu ship venv's pip bootstrap (ensurepip) apart, in pythonX.Y-venv: without
# it `python3 -m venv` fails half done, leaving a virtualenv without pip (made anew here).
if [[ ! -x .venv/bin/pip ]] && ! python3 -m venv .venv; then
    venv_package=$(python3 -c 'import sys; print("python%d.%d-venv" % sys.version_info[:2])')
    rm -rf .venv
    if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
        # set -e does not stop at a failure inside an && list: say it, and stop.
        if ! { apt-get update -qq && apt-get install -y -qq "${venv_package}" >/dev/null; }; then
            echo "error: apt-get could not install ${venv_package}" >&2
            exit 1
        fi
        python3 -m venv .venv
    else
        echo "error: python3 -m venv failed; on Debian or Ubuntu install ${venv_package}" \
            "(sudo apt-get install ${venv_package}), then run $0 again" >&2
        exit 1
    fi
fi
.venv/bin/pip install -q --upgrade pip
.venv/bin/pip install -q -e ".${extras}"
