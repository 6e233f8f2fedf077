import Foundation
import PKCS11
import Testing

/// RFC 7512 URIs as `--key`, `--root-key` and `keygen --pkcs11` read them.
@Suite struct PKCS11URITests {
    @Test func parsesPathAndQueryAttributesWithPercentEncoding() throws {
        let uri = try PKCS11URI(
            "pkcs11:token=my%20token;object=signing-2026;id=%01%ab;type=private?pin-source=file:/run/pin&module-path=/usr/lib/m.so"
        )
        #expect(uri.token == "my token")
        #expect(uri.object == "signing-2026")
        #expect(uri.id == [0x01, 0xAB])
        #expect(uri.type == "private")
        #expect(uri.pinSource == "file:/run/pin")
        #expect(uri.modulePath == "/usr/lib/m.so")
        #expect(try PKCS11URI(uri.description) == uri)
        #expect(PKCS11URI.isURI("PKCS11:token=x") && !PKCS11URI.isURI("./data/signing-key.pem"))
    }

    @Test func refusesWhatItCannotHonour() {
        let refused = [
            "pkcs11:token=x;object=y?pin-value=1234", "pkcs11:token=x;serial=42", "pkcs11:token=x;token=y",
            "pkcs11:token=x;object=%zz", "pkcs11:token", "file:/key.pem", "pkcs11:token=x?module-name=softhsm2",
        ]
        for text in refused {
            #expect(throws: PKCS11Error.self, "\(text)") { try PKCS11URI(text) }
            do {
                _ = try PKCS11URI(text)
            } catch {
                #expect(error.code == .invalidURI)
                #expect(!error.detail.contains("1234"), "the PIN is echoed: \(error.detail)")
            }
        }
    }

    @Test func thePINComesFromTheFileElseTheFallbackElseAClearError() throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("pin")
        try "s3cret\n".write(to: file, atomically: true, encoding: .utf8)
        #expect(try PKCS11URI("pkcs11:token=t;object=k?pin-source=file:\(file.path)").pin(fallback: "env") == "s3cret")
        #expect(try PKCS11URI("pkcs11:token=t;object=k?pin-source=file://\(file.path)").pin(fallback: nil) == "s3cret")
        #expect(try PKCS11URI("pkcs11:token=t;object=k").pin(fallback: "env") == "env")
        #expect(throws: PKCS11Error.self) { try PKCS11URI("pkcs11:token=t;object=k").pin(fallback: nil) }
        do {
            _ = try PKCS11URI("pkcs11:token=t;object=k?pin-source=file:/nonexistent/pin").pin(fallback: nil)
            Issue.record("a missing PIN file was accepted")
        } catch {
            #expect(error.code == .pinSourceUnreadable)
        }
    }
}
