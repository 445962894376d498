/// The version of this build of yiana-tools, as `Scripts/version.sh` derived it from git when
/// it was built (`0.1.0~git20261127.646338b243`; `0.1.0+dev` outside git): the one version
/// `yiana --version`, `/api/health`, `status --json`, the man pages and the Debian package carry.
public enum YianaVersion {
    public static var string: String { generated }
}
