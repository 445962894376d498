#!/usr/bin/env bash
# The HTTPS example of docs/BROWSER.md, run: nginx (Debian's) with Scripts/service/nginx/yiana-serve.conf and a
# self-signed certificate in front of `yiana serve --password-file` on loopback. Over HTTPS,
# through the proxy: a page sends to the login; a wrong password is refused; the right one
# gives a session cookie marked Secure, HttpOnly, SameSite=Strict; with it the health page and
# the API answer; a PDF dropped on the import page goes through the proxy (streamed) and is
# imported; a form from another origin is refused. Exits 1 on a failure.
# Usage: Scripts/checks/tls-proxy.sh YIANA_BINARY
set -euo pipefail
cd "$(dirname "$0")/../.."
source Scripts/bench/common.sh
Scripts/setup.sh nginx openssl curl >/dev/null
yiana="$(realpath "$1")"
work="$(mktemp -d "${TMPDIR:-/tmp}/yiana-tls-XXXXXX")"
export XDG_STATE_HOME="$work/state" XDG_CACHE_HOME="$work/cache"
server=""; proxy=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; [ -n "$proxy" ] && kill "$proxy" 2>/dev/null; rm -rf "$work"' EXIT
failed=0
check() { if eval "$2"; then echo "ok    $1"; else echo "FAIL  $1"; failed=1; fi; }

"$yiana" import --library "$work/lib" SampleDocs/pdfs/Bank\ statement\ reminder.pdf >/dev/null
"$yiana" index --library "$work/lib" >/dev/null
echo "correct horse battery staple" | "$yiana" serve --set-password "$work/password" >/dev/null
start_serve "$work" "$yiana" --library "$work/lib" --password-file "$work/password"
upstream=${url#http://}
upstream=${upstream%/}
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=yiana.example" -addext "subjectAltName=DNS:yiana.example" \
    -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
sed -e "s|@WORK@|$work|g" -e "s|@LISTEN@|127.0.0.1:$port|" -e "s|@CERT@|$work/cert.pem|" -e "s|@KEY@|$work/key.pem|" \
    -e "s|@UPSTREAM@|$upstream|" Scripts/service/nginx/yiana-serve.conf > "$work/nginx.conf"
nginx -t -c "$work/nginx.conf" -g "daemon off;" 2>/dev/null || { nginx -t -c "$work/nginx.conf" -g "daemon off;"; exit 1; }
nginx -c "$work/nginx.conf" -g "daemon off;" 2>"$work/nginx.err" &
proxy=$!
base="https://yiana.example:$port"
tls=(--cacert "$work/cert.pem" --resolve "yiana.example:$port:127.0.0.1" -s)
for _ in $(seq 50); do curl "${tls[@]}" -o /dev/null "$base/login" && break; sleep 0.1; done

check "a page sends to the login" '[ "$(curl "${tls[@]}" -o /dev/null -w "%{http_code} %{redirect_url}" "$base/health")" = "303 $base/login?next=/health" ]'
token=$(curl "${tls[@]}" "$base/login" | grep -o 'name="csrf" value="[0-9a-f]*"' | sed -n 1p | cut -d'"' -f4)
login() { curl "${tls[@]}" -o /dev/null -D "$work/headers" -w "%{http_code}" -H "Origin: $base" --data-urlencode "password=$1" \
               --data-urlencode "csrf=$token" --data-urlencode "next=/health" "$base/login"; }
check "a wrong password is refused" '[ "$(login "guess")" = "401" ]'
check "the right one logs in" '[ "$(login "correct horse battery staple")" = "303" ]'
cookie=$(grep -i '^set-cookie:' "$work/headers" | tr -d '\r')
check "the session cookie is Secure, HttpOnly, SameSite=Strict (behind HTTPS)" \
    '[[ "$cookie" == *"; Secure"* && "$cookie" == *"HttpOnly"* && "$cookie" == *"SameSite=Strict"* ]]'
session=$(echo "$cookie" | sed 's/^[^:]*: *//; s/;.*//')
check "with it, the health page" '[ "$(curl "${tls[@]}" -o /dev/null -w "%{http_code}" -H "Cookie: $session" "$base/health")" = "200" ]'
check "and the API" 'curl "${tls[@]}" -H "Cookie: $session" "$base/api/search?q=statement" | grep -q "Bank statement reminder"'
status=$(curl "${tls[@]}" -o "$work/import.json" -w "%{http_code}" -H "Cookie: $session" -H "Origin: $base" -H "X-CSRF-Token: $token" \
              -H "Content-Type: application/pdf" --data-binary @"SampleDocs/pdfs/Flow control paper.pdf" "$base/import?folder=Papers&name=Flow%20control%20paper.pdf")
check "a PDF imported through the proxy" '[ "$status" = "201" ] && [ -f "$work/lib/Papers/Flow control paper.yianazip" ]'
check "a form from another origin is refused" '[ "$(curl "${tls[@]}" -o /dev/null -w "%{http_code}" -H "Cookie: $session" -H "Origin: https://evil.example" \
    --data-urlencode "csrf=$token" "$base/logout")" = "403" ]'
[ "$failed" = 0 ] && echo "tls-proxy-check: pass" || { echo "tls-proxy-check: FAIL"; cat "$work/nginx.err" "$work/serve.err" | tail -20; exit 1; }
