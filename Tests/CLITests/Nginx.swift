import Foundation
import TestSupport

/// A real nginx (Debian nginx-light) serving `root` on a loopback port, as a subprocess with `daemon off`.
final class Nginx {
    let process: ChildProcess
    let port: Int
    var url: String { "http://127.0.0.1:\(port)" }

    init(root: URL, work: URL) throws {
        port = Int.random(in: 20_000...60_000)
        let temp = work.appendingPathComponent("nginx-tmp").path
        try FileManager.default.createDirectory(atPath: temp, withIntermediateDirectories: true)
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
        process = try ProcessRunner.start("/usr/sbin/nginx", ["-c", configURL.path, "-g", "daemon off;"])
        // Wait until it accepts connections.
        for _ in 0..<50 {
            if (try? CLIRunner.run("/usr/bin/curl", ["-s", "-o", "/dev/null", url + "/keys"]))?.status == 0 { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}
