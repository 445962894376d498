extension String {
    /// The string as one word for a POSIX shell, to paste into a command: as it is when it
    /// holds only characters no shell treats specially, else in single quotes (a single
    /// quote inside written `'\''`).
    package var shellQuoted: String {
        let plain = !isEmpty && unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-_./:@%+=,".unicodeScalars.contains(scalar))
        }
        return plain ? self : "'" + replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
