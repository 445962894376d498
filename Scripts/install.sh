#!/usr/bin/env bash
# Installs yiana for the current user (or into PREFIX): the release binary, a man page per
# command generated from the CLI itself (swift-argument-parser's generate-manual plugin),
# shell completions for bash, zsh and fish (`yiana --generate-completion-script`), and the
# systemd user units of `yiana watch` and `yiana serve` (Scripts/service/systemd/).
# Usage: Scripts/install.sh [PREFIX]        (default ~/.local; needs no root for that)
set -euo pipefail
cd "$(dirname "$0")/.."
prefix="${1:-$HOME/.local}"
Scripts/setup.sh
YIANA_STATIC_RUNTIME=1 swift build -c release --product yiana
bin="$(swift build -c release --show-bin-path)"

mkdir -p "$prefix/bin" "$prefix/share/man/man1" "$prefix/share/bash-completion/completions" \
         "$prefix/share/zsh/site-functions" "$prefix/share/fish/vendor_completions.d"
install -m 0755 "$bin/yiana" "$prefix/bin/yiana"

# One page per command (yiana.1, yiana.repair.1, yiana.conflicts.resolve.1, …).
swift package generate-manual --multi-page >/dev/null
install -m 0644 .build/plugins/GenerateManual/outputs/yiana/*.1 "$prefix/share/man/man1/"

"$bin/yiana" --generate-completion-script bash > "$prefix/share/bash-completion/completions/yiana"
"$bin/yiana" --generate-completion-script zsh > "$prefix/share/zsh/site-functions/_yiana"
"$bin/yiana" --generate-completion-script fish > "$prefix/share/fish/vendor_completions.d/yiana.fish"

# The systemd user units of `yiana watch`, `serve` and the daily `backup`, one instance per library (see the files).
units="${XDG_CONFIG_HOME:-$HOME/.config}/systemd/user"
mkdir -p "$units"
for unit in yiana-watch@.service yiana-serve@.service yiana-backup@.service yiana-backup@.timer; do
    sed "s|@BIN@|$prefix/bin|" "Scripts/service/systemd/$unit" > "$units/$unit"
done
if command -v systemctl >/dev/null && systemctl --user daemon-reload 2>/dev/null; then
    echo "installed the user units yiana-watch@.service, yiana-serve@.service and yiana-backup@.timer; for ~/Yiana, now and at every login:"
else
    echo "installed the user units yiana-watch@.service, yiana-serve@.service and yiana-backup@.timer in $units (no user systemd is running here); once it is:"
fi
echo "  systemctl --user enable --now \"yiana-watch@\$(systemd-escape --path ~/Yiana).service\"   # keeps it indexed and healthy"
echo "  systemctl --user enable --now \"yiana-serve@\$(systemd-escape --path ~/Yiana).service\"   # http://127.0.0.1:8484/"
echo "  systemctl --user enable --now \"yiana-backup@\$(systemd-escape --path ~/Yiana).timer\"    # daily, into the restic repository of ~/.config/yiana-tools/backup.env"

echo "installed yiana in $prefix/bin, $(ls .build/plugins/GenerateManual/outputs/yiana/*.1 | wc -l) man pages in $prefix/share/man/man1,"
echo "and completions for bash, zsh and fish. Try: man yiana; man yiana.repair"
case ":$PATH:" in *":$prefix/bin:"*) ;; *) echo "note: $prefix/bin is not on your PATH." ;; esac
