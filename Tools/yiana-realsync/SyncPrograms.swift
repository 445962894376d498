import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import YianaSystem

/// A real sync program carrying two folders of one machine, as two devices.
protocol SyncProgram {
    var name: String { get }
    /// Starts the program (and its servers) for folders `a` and `b`.
    mutating func start(a: URL, b: URL) async throws
    /// Returns once both folders agree (or throws after a time limit).
    func sync() async throws
    /// Cuts the two devices off from each other (edits then made on both sides conflict).
    func disconnect() async throws
    /// Connects them again.
    func reconnect() async throws
    func stop()
}

/// unison 2.52, local to local, copying the loser of a conflict aside (`-copyonconflict`).
struct Unison: SyncProgram {
    let name = "unison"
    let shell: Shell
    var a: URL?, b: URL?

    init(shell: Shell, work: URL) throws {
        var shell = shell
        let home = work.appendingPathComponent("unison-home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        shell.environment["UNISON"] = home.path  // its archives, never the user's ~/.unison
        self.shell = shell
    }

    mutating func start(a: URL, b: URL) async throws {
        _ = try Shell.which("unison")
        self.a = a
        self.b = b
    }

    func sync() async throws {
        guard let a, let b else { return }
        // A conflict copy made in one run reaches the other side in the next: run until
        // unison has nothing left to do.
        for _ in 0..<5 {
            let run = try shell.must("unison", [a.path, b.path, "-batch", "-copyonconflict", "-prefer", "newer", "-times",
                                                "-confirmbigdel=false", "-ui", "text"], allowed: [0, 1])
            if run.stdout.contains("Nothing to do") || run.stderr.contains("Nothing to do") { return }
        }
        throw RealSyncError("unison did not settle after 5 runs")
    }

    func disconnect() async throws {}  // unison only runs when asked
    func reconnect() async throws {}
    func stop() {}
}

/// Syncthing, two instances with homes of their own, talking over 127.0.0.1 only:
/// discovery, relays, NAT, upgrades, usage and crash reports off before the first start;
/// devices and the folder set up through the REST API.
final class Syncthing: SyncProgram {
    let name = "syncthing"
    let shell: Shell
    let work: URL
    private var peers: [Peer] = []

    struct Peer {
        let home: URL
        let folder: URL
        let id: String
        let gui: Int
        let listen: Int
        let key: String
        let server: Shell.Running
    }

    init(shell: Shell, work: URL) {
        self.shell = shell
        self.work = work
    }

    func start(a: URL, b: URL) async throws {
        var made: [(home: URL, folder: URL, id: String, gui: Int, listen: Int, key: String)] = []
        // Four different ports: two asks of the system for a free port can give the same one,
        // and a device that cannot listen is never called.
        var ports: [Int] = []
        while ports.count < 4 {
            let port = try Self.freePort()
            if !ports.contains(port) { ports.append(port) }
        }
        for (number, (label, folder)) in [("a", a), ("b", b)].enumerated() {
            let home = work.appendingPathComponent("syncthing-\(label)")
            let generated = try shell.must("syncthing", ["generate", "--home=\(home.path)", "--no-default-folder", "--skip-port-probing"])
            let lines = (generated.stdout + generated.stderr).split(separator: "\n").map(String.init)
            guard let line = lines.first(where: { $0.contains("Device ID: ") }), let marker = line.range(of: "Device ID: ") else {
                throw RealSyncError("syncthing generate printed no device id")
            }
            let id = String(line[marker.upperBound...]).trimmingCharacters(in: .whitespaces)
            let key = UUID().uuidString.replacingOccurrences(of: "-", with: "")
            let gui = ports[2 * number], listen = ports[2 * number + 1]
            try Self.loopbackOnly(config: home.appendingPathComponent("config.xml"), listen: listen)
            made.append((home, folder, id, gui, listen, key))
        }
        for m in made {
            let server = try shell.start("syncthing", ["serve", "--home=\(m.home.path)", "--no-browser", "--no-restart", "--no-upgrade",
                                                       "--gui-address=127.0.0.1:\(m.gui)", "--gui-apikey=\(m.key)",
                                                       "--logfile=\(m.home.appendingPathComponent("syncthing.log").path)"],
                                         extra: ["STNOUPGRADE": "1", "STNODEFAULTFOLDER": "1", "STNORESTART": "1"])
            peers.append(Peer(home: m.home, folder: m.folder, id: m.id, gui: m.gui, listen: m.listen, key: m.key, server: server))
        }
        for peer in peers { try await waitUntil("\(peer.id) answers") { _ = try await self.get(peer, "/rest/system/ping"); return true } }
        for (index, peer) in peers.enumerated() {
            let other = peers[1 - index]
            // Only a dials b: when both dial at once, Syncthing may drop both connections and
            // try again only after its reconnection interval. ("dynamic" would need discovery,
            // which is off: b simply waits to be called.)
            try await send(peer, "POST", "/rest/config/devices", [
                "deviceID": other.id, "name": index == 0 ? "b" : "a",
                "addresses": index == 0 ? ["tcp://127.0.0.1:\(other.listen)"] : ["dynamic"],
            ])
            var folder: [String: Any] = [
                "id": "yiana", "label": "yiana", "path": peer.folder.path, "type": "sendreceive",
                "devices": [["deviceID": peer.id], ["deviceID": other.id]],
                "rescanIntervalS": 3600, "fsWatcherEnabled": false,
            ]
            // Device b keeps old versions, as many users set it: `.stversions` must never be
            // taken for documents.
            if index == 1 { folder["versioning"] = ["type": "simple", "params": ["keep": "5"], "cleanupIntervalS": 3600] }
            try await send(peer, "POST", "/rest/config/folders", folder)
        }
        try await reconnect()
    }

    func sync() async throws {
        for peer in peers { try await send(peer, "POST", "/rest/db/scan?folder=yiana", nil) }
        try await waitUntil("both devices agree") {
            for (index, peer) in self.peers.enumerated() {
                let status = try await self.get(peer, "/rest/db/status?folder=yiana")
                guard status["state"] as? String == "idle", (status["needTotalItems"] as? Int) == 0 else { return false }
                let completion = try await self.get(peer, "/rest/db/completion?folder=yiana&device=\(self.peers[1 - index].id)")
                guard (completion["completion"] as? Double ?? 0) >= 100, (completion["needItems"] as? Int ?? 1) == 0 else { return false }
            }
            return Tree.documentsAndState(self.peers[0].folder) == Tree.documentsAndState(self.peers[1].folder)
        }
    }

    func disconnect() async throws {
        for (index, peer) in peers.enumerated() { try await send(peer, "POST", "/rest/system/pause?device=\(peers[1 - index].id)", nil) }
        try await waitUntil("the devices are apart") { try await !self.connected() }
    }

    func reconnect() async throws {
        for (index, peer) in peers.enumerated() { try await send(peer, "POST", "/rest/system/resume?device=\(peers[1 - index].id)", nil) }
        do {
            try await waitUntil("the devices are connected") { try await self.connected() }
        } catch {
            throw RealSyncError("\(error); what Syncthing logged:\n\(logTails())")
        }
    }

    /// The last lines each device's Syncthing logged (listening, dialling, refusing).
    private func logTails() -> String {
        peers.map { peer in
            let log = (try? String(contentsOf: peer.home.appendingPathComponent("syncthing.log"), encoding: .utf8)) ?? "(no log)"
            return "  \(peer.home.lastPathComponent): " + log.split(separator: "\n").suffix(12).joined(separator: "\n    ")
        }.joined(separator: "\n")
    }

    func stop() {
        for peer in peers { peer.server.stop() }
    }

    private func connected() async throws -> Bool {
        for (index, peer) in peers.enumerated() {
            let connections = try await get(peer, "/rest/system/connections")
            let other = (connections["connections"] as? [String: Any])?[peers[1 - index].id] as? [String: Any]
            guard other?["connected"] as? Bool == true else { return false }
        }
        return true
    }

    /// Rewrites the generated config so that nothing leaves 127.0.0.1, and reconnects are quick.
    static func loopbackOnly(config: URL, listen: Int) throws {
        var text = try String(contentsOf: config, encoding: .utf8)
        let settings = [
            "listenAddress": "tcp://127.0.0.1:\(listen)", "globalAnnounceEnabled": "false", "localAnnounceEnabled": "false",
            "relaysEnabled": "false", "natEnabled": "false", "urAccepted": "-1", "autoUpgradeIntervalH": "0",
            "crashReportingEnabled": "false", "startBrowser": "false", "announceLANAddresses": "false",
            // Reconnect soon after a pause is lifted (the default waits up to a minute).
            "reconnectionIntervalS": "2",
        ]
        for (key, value) in settings {
            guard let range = text.range(of: "<\(key)>[^<]*</\(key)>", options: .regularExpression) else {
                throw RealSyncError("syncthing's config has no <\(key)>: cannot keep it on loopback")
            }
            text.replaceSubrange(range, with: "<\(key)>\(value)</\(key)>")
        }
        try text.write(to: config, atomically: true, encoding: .utf8)
    }

    static func freePort() throws -> Int {
        do { return try Sys.freeLoopbackPort() } catch { throw RealSyncError("no free port on 127.0.0.1: \(error)") }
    }

    private func request(_ peer: Peer, _ method: String, _ path: String, _ body: Any?) async throws -> Data {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(peer.gui)\(path)")!)
        request.httpMethod = method
        request.setValue(peer.key, forHTTPHeaderField: "X-API-Key")
        request.timeoutInterval = 10
        if let body {
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        guard let http = response as? HTTPURLResponse, (200..<300).contains(http.statusCode) else {
            throw RealSyncError("syncthing \(method) \(path): \((response as? HTTPURLResponse)?.statusCode ?? 0) \(String(decoding: data, as: UTF8.self))")
        }
        return data
    }

    private func get(_ peer: Peer, _ path: String) async throws -> [String: Any] {
        let data = try await request(peer, "GET", path, nil)
        return (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }

    private func send(_ peer: Peer, _ method: String, _ path: String, _ body: Any?) async throws {
        _ = try await request(peer, method, path, body)
    }

    private func waitUntil(_ what: String, seconds: Double = 90, _ condition: () async throws -> Bool) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        var last: Error?
        while Date() < deadline {
            do {
                if try await condition() { return }
            } catch {
                last = error
            }
            try await Task.sleep(nanoseconds: 200_000_000)
        }
        throw RealSyncError("syncthing: timed out waiting until \(what)\(last.map { " (\($0))" } ?? "")")
    }
}
