#!/usr/bin/python3
"""Writes the Debian `copyright` file (machine-readable format 1.0) of the yiana-tools package:
the project's own licence, and for every component compiled into the binary its licence.

The Swift packages compiled in are found from the link list of the release build (the modules
whose objects the binary was linked from), each traced to its package by the source paths its
build records (a Swift module's output-file-map.json, a C module's dependency files); each
package's licence text is copied from its own LICENSE file. The Swift runtime and Foundation
(linked in statically, as --static-swift-stdlib links them) and the postcode table follow.

Usage: Scripts/package/copyright.py LINK_FILE_LIST CHECKOUTS_FOLDER > copyright
"""
import os, re, sys

link_list, checkouts = sys.argv[1], sys.argv[2]
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

module_dirs = {}
for line in open(link_list):
    match = re.search(r"^(.*/([^/]+)\.build)/", line.strip())
    if match:
        module_dirs[match.group(2)] = match.group(1)


def package_of(folder):
    """The checkout a module was compiled from, by the source paths its build recorded."""
    candidates = [os.path.join(folder, "output-file-map.json")]
    for base, _, files in os.walk(folder):
        candidates += [os.path.join(base, f) for f in files if f.endswith(".d")][:3]
        if len(candidates) > 4:
            break
    for path in candidates:
        try:
            found = re.search(r"/checkouts/([^/]+)/", open(path, errors="replace").read())
        except OSError:
            continue
        if found:
            return found.group(1)
    return None


packages = {}
for module, folder in sorted(module_dirs.items()):
    name = package_of(folder)
    if name:
        packages.setdefault(name, []).append(module)
packages = dict(sorted(packages.items(), key=lambda item: item[0].lower()))


def licence_file(folder):
    for candidate in ("LICENSE", "LICENSE.txt", "LICENSE.md", "COPYING"):
        path = os.path.join(folder, candidate)
        if os.path.isfile(path):
            return path
    return None


def short_name(text):
    if "Apache License" in text and "Version 2.0" in text:
        return "Apache-2.0"
    if "Permission is hereby granted, free of charge" in text:
        return "Expat"
    if "Redistribution and use in source and binary forms" in text:
        return "BSD-3-clause" if "Neither the name" in text else "BSD-2-clause"
    sys.exit(f"deb-copyright: a licence this script does not know; name it here: {text[:200]!r}")


def body(text):
    """A licence text as a copyright file holds it: every line indented, blank lines as ' .'."""
    return "\n".join(" " + line.rstrip() if line.strip() else " ." for line in text.strip("\n").split("\n"))


print("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/")
print("Upstream-Name: yiana-tools")
print("Comment: The yiana binary is statically linked with the Swift runtime and the Swift")
print(" packages below (the modules its release build linked); every other library it uses")
print(" is a Debian package it depends on.")
print()
print("Files: *")
print("Copyright: 2026 the yiana-tools authors")
print("License: Expat")
print()

written = {"Expat": None, "Apache-2.0": None}
extra = []
for name, used in packages.items():
    path = licence_file(os.path.join(checkouts, name))
    if path is None:
        sys.exit(f"deb-copyright: {name} has no LICENSE file")
    text = open(path, encoding="utf-8", errors="replace").read()
    licence = short_name(text)
    print(f"Files: swift-packages/{name}/*")
    notice = next((open(os.path.join(checkouts, name, n), errors="replace").read() for n in ("NOTICE.txt", "NOTICE")
                   if os.path.isfile(os.path.join(checkouts, name, n))), "")
    holder = next((m.group(1).strip() for m in re.finditer(r"^\s*Copyright\s+(?:\(c\)\s*|©\s*)?(\d{4}.*)$", text + "\n" + notice, re.M | re.I)),
                  f"the {name} authors")
    print(f"Copyright: {holder}")
    print(f"License: {licence}")
    comment = f"Compiled in: the modules {', '.join(used)}."
    if any(m.startswith("C") and "BoringSSL" in m for m in used):
        comment += " It includes BoringSSL, under the OpenSSL and ISC licences (the package's LICENSE and NOTICE)."
    print(f"Comment: {comment}")
    if licence not in ("Apache-2.0",):
        # Each package's own words (its copyright line is part of an MIT or BSD text).
        print(body(text))
    print()

swift = "/opt/swift/usr/share/swift/LICENSE.txt"
print("Files: swift-runtime/*")
print("Copyright: Apple Inc. and the Swift project authors")
print("License: Apache-2.0 with Runtime Library Exception")
print("Comment: The Swift standard library, Foundation, Dispatch and the ICU data Foundation")
print(" carries (swift-foundation-icu, under the Unicode licence: https://www.unicode.org/license.txt),")
print(" linked in statically.")
if os.path.isfile(swift):
    exception = open(swift).read().split("## Runtime Library Exception to the Apache 2.0 License: ##", 1)[-1]
    print(body("The Apache License 2.0 (/usr/share/common-licenses/Apache-2.0), with this exception:\n" + exception))
print()
print("Files: usr/share/yiana-tools/postcode-sectors.tsv")
print("Copyright: Office for National Statistics (ONS Postcode Directory)")
print("License: OGL-UK-3.0")
print(" Contains OS data (c) Crown copyright and database right; contains Royal Mail data (c) Royal")
print(" Mail copyright and database right; source: Office for National Statistics licensed under")
print(" the Open Government Licence v.3.0: https://www.nationalarchives.gov.uk/doc/open-government-licence/version/3/")
print()
print("License: Expat")
print(body(open(os.path.join(root, "LICENSE")).read()))
print()
print("License: Apache-2.0")
print(" On Debian systems the full text of the Apache License 2.0 is in")
print(" /usr/share/common-licenses/Apache-2.0.")
