import PinSetAdminAPI

extension TokenScope {
    /// The scope of `pinset token create --role ROLE --hosts PATTERN...`: no pattern, or `*`, means every host.
    init(parsingRole role: String, hosts: [String]) throws {
        guard let parsed = TokenRole(rawValue: role) else {
            throw CLIError("--role \"\(role)\" is not a role; use reader, writer or admin")
        }
        if hosts.isEmpty || hosts.contains("*") {
            self.init(role: parsed, hosts: nil)
            return
        }
        var patterns: [HostPattern] = []
        for text in hosts {
            do {
                patterns.append(try HostPattern(text))
            } catch {
                throw CLIError("--hosts \"\(text)\" is not a host pattern (api.example.com or *.example.com): \(error)")
            }
        }
        self.init(role: parsed, hosts: patterns)
    }
}
