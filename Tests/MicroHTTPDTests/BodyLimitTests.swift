import MicroHTTPD
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite(.blocking) struct BodyLimitTests {
    @Test func bodySentSlowlyInChunksIsAccumulated() throws {
        let server = try startServer()
        let client = try RawConnection(port: server.port)
        let body = (0..<3000).map { UInt8(truncatingIfNeeded: $0) }
        try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.count)\r\n\r\n")
        for start in stride(from: 0, to: body.count, by: 1000) {
            usleep(100_000)
            try client.send(Array(body[start..<min(start + 1000, body.count)]))
        }
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.body == body)
        // The connection stays usable, and the next request sees an empty body.
        try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        #expect(try client.readResponse().headers["x-body-length"] == "0")
    }

    @Test func chunkedBodyIsAccumulated() throws {
        let server = try startServer()
        let client = try RawConnection(port: server.port)
        try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        try client.send("5\r\nhello\r\n")
        usleep(100_000)
        try client.send("6\r\n world\r\n0\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.text == "hello world")
    }

    @Test func contentLengthOverTheLimitIsRejectedAtOnce() throws {
        let server = try startServer { $0.maxBodyBytes = 1000 }
        let client = try RawConnection(port: server.port)
        // Only the headers: the answer must come without the server waiting for the body.
        try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1001\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 413)
        #expect(response.headers["content-type"] == "application/problem+json")
        #expect(response.text.contains("\"type\":\"urn:pinset:problem:payload-too-large\""))
        #expect(response.text.contains("\"status\":413"))
    }

    @Test func chunkedBodyGrowingPastTheLimitIsRejected() throws {
        let server = try startServer { $0.maxBodyBytes = 1000 }
        let client = try RawConnection(port: server.port)
        try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        let chunk = String(repeating: "a", count: 600)
        for _ in 0..<4 {
            try client.send("258\r\n\(chunk)\r\n")  // 0x258 = 600
            usleep(20_000)
        }
        try client.send("0\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 413)
        #expect(response.text.contains("payload-too-large"))
    }

    @Test func bodyExactlyAtTheLimitIsAccepted() throws {
        let server = try startServer { $0.maxBodyBytes = 1000 }
        let client = try RawConnection(port: server.port)
        try client.send(
            "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n" + String(repeating: "b", count: 1000))
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.body.count == 1000)
    }
}
