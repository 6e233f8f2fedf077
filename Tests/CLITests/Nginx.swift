import Foundation
import TestSupport

/// A real nginx (Debian nginx-light) serving `root` on a loopback port, as a subprocess with `daemon off`.
final class Nginx {
    let process: ChildProcess
    let port: Int
    var url: String { "http://127.0.0.1:\(port)" }

    /// Why nginx did not come up: its error log, so a failed test says what went wrong.
    struct NotStarted: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts nginx on a random loopback port. A port another process holds makes nginx exit at once; then
    /// another port is tried (at most 5). Each start gets 30 s to accept a connection: under the full suite a
    /// 2-core machine can take seconds to fork and exec (CI once saw errno 111 after a 5 s wait).
    init(root: URL, work: URL) throws {
        let temp = work.appendingPathComponent("nginx-tmp").path
        try FileManager.default.createDirectory(atPath: temp, withIntermediateDirectories: true)
        let errorLog = work.appendingPathComponent("nginx-error.log")
        for _ in 0..<5 {
            let port = Int.random(in: 20_000...60_000)
            let process = try Self.start(root: root, work: work, temp: temp, port: port)
            if Self.waitUntilServing(process, url: "http://127.0.0.1:\(port)") {
                self.process = process
                self.port = port
                return
            }
            process.terminate()
            process.waitUntilExit()
        }
        let log = (try? String(contentsOf: errorLog, encoding: .utf8)) ?? "(no error log)"
        throw NotStarted(description: "nginx did not serve on any of 5 loopback ports; its error log:\n\(log)")
    }

    private static func start(root: URL, work: URL, temp: String, port: Int) throws -> ChildProcess {
        let config = """
            worker_processes 1;
            error_log \(work.path)/nginx-error.log;
            pid \(work.path)/nginx.pid;
            events { worker_connections 64; }
            http {
                access_log off;
                client_body_temp_path \(temp); proxy_temp_path \(temp); fastcgi_temp_path \(temp);
                uwsgi_temp_path \(temp); scgi_temp_path \(temp);
                server {
                    listen 127.0.0.1:\(port);
                    root \(root.path);
                    location /pins/ { default_type application/json; add_header Cache-Control "public, max-age=3600"; }
                    location = /keys { default_type application/json; }
                    location = /trust { default_type application/json; try_files /trust/index.json =404; }
                    location /trust/ { default_type application/json; }
                    # The transparency log (pinset export --log-from): tiles, and proofs from proof/.
                    location /log/ { default_type application/octet-stream; }
                    location = /log/checkpoint { default_type "text/plain; charset=utf-8"; }
                    location ~ ^/pins/([^/]+)/proof$ { default_type "text/plain; charset=utf-8"; try_files /proof/pins/$1 =404; }
                    location ~ ^/trust/([0-9]+)/proof$ { default_type "text/plain; charset=utf-8"; try_files /proof/trust/$1 =404; }
                }
            }
            """
        let configURL = work.appendingPathComponent("nginx.conf")
        try config.write(to: configURL, atomically: true, encoding: .utf8)
        return try ProcessRunner.start("/usr/sbin/nginx", ["-c", configURL.path, "-g", "daemon off;"])
    }

    /// True once nginx answers any HTTP request; false if it exits first (port taken) or after 30 s.
    private static func waitUntilServing(_ process: ChildProcess, url: String) -> Bool {
        for _ in 0..<300 {
            // curl -s exits 0 on any HTTP answer, a 404 included; 7 means nothing listens yet.
            if (try? CLIRunner.run("/usr/bin/curl", ["-s", "-o", "/dev/null", url + "/"]))?.status == 0 { return true }
            if !process.isRunning { return false }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return false
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}
