#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Sys {
    /// One line from standard input, without its newline; typed without echo when standard
    /// input is a terminal (the terminal's settings are put back after). Nil at end of input.
    package static func readSecretLine() -> String? {
        var settings = termios()
        let terminal = tcgetattr(STDIN_FILENO, &settings) == 0
        if terminal {
            var quiet = settings
            quiet.c_lflag &= ~tcflag_t(ECHO)
            _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
        }
        defer {
            if terminal {
                _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &settings)
                _ = write(STDERR_FILENO, "\n", 1)
            }
        }
        return readLine(strippingNewline: true)
    }
}
