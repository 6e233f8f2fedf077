internal import CMicroHTTPD
import Foundation

/// The C callbacks given to libmicrohttpd.
///
/// They live in a plain, non-isolated type on purpose: a closure written at the top level of `main.swift` would be
/// `@MainActor` and crash when called from an MHD thread. They capture nothing; the ``ServerContext`` arrives as
/// `cls`, the ``ConnectionState`` as the socket context and, during a request, as `*con_cls`.
enum MHDCallbacks {
    /// How many bytes past `maxBodyBytes` are read and dropped before an endless body gets its connection closed.
    static let discardLimit = 1 << 20

    /// MHD_AccessHandlerCallback. Called once with the headers, then once per body fragment, then once with
    /// `*upload_data_size == 0`: the answer is queued on that last call, never on the first (answering on the
    /// first call makes MHD close keep-alive connections), except for a `Content-Length` over the limit.
    static let access: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadSize, conCls in
        guard let cls, let connection, let url, let method, let uploadSize, let conCls else { return .NO }
        let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()

        guard let current = conCls.pointee else {
            // First call: only the headers are in.
            guard let info = cmhd_connection_info(connection, .CONNECTION_INFO_SOCKET_CONTEXT),
                let socketContext = info.pointee.socket_context
            else { return .NO }
            let state = Unmanaged<ConnectionState>.fromOpaque(socketContext).takeUnretainedValue()
            state.inRequest = true
            context.counters.withLock { $0.inFlight += 1 }
            conCls.pointee = socketContext
            if let bad = state.controlCharacterIn {
                state.controlCharacterIn = nil
                if bad == url { return queue(context.badPath, on: connection, state: state) }
            }
            // GET and HEAD (first letter G or H) skip the header scan: they almost never carry a body, and one
            // that does still gets its 413 once the body is in.
            let first = UInt8(bitPattern: method.pointee)
            if first != UInt8(ascii: "G") && first != UInt8(ascii: "H")
                && announcedLength(connection) > context.maxBodyBytes
            {
                state.bodyTooLarge = true
                return queue(context.payloadTooLarge, on: connection, state: state)
            }
            return .YES
        }
        let state = Unmanaged<ConnectionState>.fromOpaque(current).takeUnretainedValue()

        let count = uploadSize.pointee
        if count > 0 {
            // A body fragment: keep it while under the limit, discard everything once past it.
            uploadSize.pointee = 0
            if state.bodyTooLarge {
                // MHD 0.9.75 sends no answer before the body ends, so the excess is read and dropped; a body
                // that goes on and on (past 1 MiB of excess) gets its connection closed instead.
                state.discarded += count
                return state.discarded > discardLimit ? .NO : .YES
            }
            if state.body.count + count > context.maxBodyBytes {
                state.bodyTooLarge = true
                state.body = []
                return .YES
            }
            if let uploadData {
                UnsafeRawPointer(uploadData).withMemoryRebound(to: UInt8.self, capacity: count) {
                    state.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: count))
                }
            }
            return .YES
        }

        if state.responseQueued { return .YES }
        if let pending = state.pending {
            // Called again after a resume: the deferred work's answer.
            state.pending = nil
            return answer(pending, context: context, on: connection, state: state)
        }
        if state.bodyTooLarge { return queue(context.payloadTooLarge, on: connection, state: state) }
        let request = HTTPRequest(
            connection: connection, url: url, method: HTTPMethod(cString: method), state: state)
        let response = context.handler.handle(request)
        guard case .deferred(let work) = response else {
            return answer(response, context: context, on: connection, state: state)
        }
        guard let ticket = context.register(connection, state) else {
            // Too many waiting already: 503 with Retry-After, rather than a queue without bound or work that
            // holds this worker thread (and the GETs behind it).
            return queue(context.overloaded, on: connection, state: state)
        }
        let detached = request.detached()
        MHD_suspend_connection(connection)
        context.start(ticket, work, detached)
        return .YES
    }

    /// MHD_UnescapeCallback: percent-decodes `s` in place as libmicrohttpd would (``MHD_http_unescape``), and
    /// first notes on the connection a string that holds a control character, raw or once decoded (`%00`, `%0A`,
    /// `%7F`): the access handler answers `400` when that string is the path. Without this a NUL ended the path
    /// early and a line feed reached the log. A quick scan; decoding is libmicrohttpd's own.
    static let unescape:
        @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutablePointer<CChar>?) -> Int = {
            _, connection, s in
            guard let s else { return 0 }
            if let connection, holdsControlCharacter(s),
                let info = cmhd_connection_info(connection, .CONNECTION_INFO_SOCKET_CONTEXT),
                let socketContext = info.pointee.socket_context
            {
                // The path comes first in the request line, its query arguments after it: keep the lowest address, so
                // that a flagged argument never hides a flagged path.
                let state = Unmanaged<ConnectionState>.fromOpaque(socketContext).takeUnretainedValue()
                if state.controlCharacterIn.map({ s < $0 }) ?? true { state.controlCharacterIn = s }
            }
            return MHD_http_unescape(s)
        }

    /// Whether the NUL-terminated `s` holds a byte below 0x20 or 0x7F, raw or as a `%XX` escape.
    private static func holdsControlCharacter(_ s: UnsafeMutablePointer<CChar>) -> Bool {
        func hex(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 0x30...0x39: byte - 0x30
            case 0x41...0x46: byte - 0x41 + 10
            case 0x61...0x66: byte - 0x61 + 10
            default: nil
            }
        }
        var index = 0
        while true {
            let byte = UInt8(bitPattern: s[index])
            if byte == 0 { return false }
            if byte < 0x20 || byte == 0x7F { return true }
            if byte == UInt8(ascii: "%"), let high = hex(UInt8(bitPattern: s[index + 1])),
                let low = hex(UInt8(bitPattern: s[index + 2]))
            {
                let decoded = high << 4 | low
                if decoded < 0x20 || decoded == 0x7F { return true }
                index += 3
                continue
            }
            index += 1
        }
    }

    /// Queues a handler's answer (a `.deferred` one here is a handler bug: the internal error answers it).
    @inline(__always)
    private static func answer(
        _ response: HTTPResponse, context: ServerContext, on connection: OpaquePointer, state: ConnectionState
    ) -> MHD_Result {
        switch response {
        case .prepared(let response):
            return queue(response, on: connection, state: state)
        case .dynamic(let status, let headers, let body):
            guard let handle = try? PreparedResponse.makeHandle(status: status, headers: headers, body: body) else {
                return queue(context.internalError, on: connection, state: state)
            }
            defer { MHD_destroy_response(handle) }
            return queue(handle: handle, status: status, on: connection, state: state)
        case .deferred:
            return queue(context.internalError, on: connection, state: state)
        }
    }

    /// MHD_RequestCompletedCallback: the request is over (answered, failed or the connection dropped).
    static let completed: MHD_RequestCompletedCallback = { cls, _, conCls, _ in
        guard let cls, let conCls, let current = conCls.pointee else { return }
        let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
        let state = Unmanaged<ConnectionState>.fromOpaque(current).takeUnretainedValue()
        if state.inRequest { context.counters.withLock { $0.inFlight -= 1 } }
        state.reset()
        context.deadlines?.arm(state)
        conCls.pointee = nil
    }

    /// MHD_PanicCallback: an `MHD_PANIC` (libmicrohttpd's fatal errors) is written to standard error with the
    /// `errno` of the call that failed, then the process aborts, as libmicrohttpd's own handler does. Its own
    /// handler prints no `errno`: "Failed to remove FD from epoll set" could not tell a descriptor closed behind
    /// libmicrohttpd's back (EBADF) from one it never registered (ENOENT) (issue 40).
    static let panic: MHD_PanicCallback = { _, file, line, reason in
        let code = errno
        let place = file.map { String(cString: $0) } ?? "?"
        let what = reason.map { String(cString: $0) }?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        let text =
            "libmicrohttpd panic at \(place):\(line): \(what) (errno \(code): \(String(cString: strerror(code))))\n"
        _ = text.withCString { write(2, $0, strlen($0)) }
        abort()
    }

    /// Installs ``panic`` once per process (libmicrohttpd's panic handler is global).
    static let installPanic: Void = MHD_set_panic_func(panic, nil)

    /// MHD_LogCallback: formats one of libmicrohttpd's error messages (printf-style, with its `va_list`) and hands
    /// it to ``ServerContext/errorLog``. Messages longer than 511 bytes are cut.
    static let log: MHD_LogCallback = { cls, format, arguments in
        guard let cls, let format, let arguments else { return }
        let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
        guard let errorLog = context.errorLog else { return }
        var buffer = [CChar](repeating: 0, count: 512)
        _ = vsnprintf(&buffer, buffer.count, format, arguments)
        let message = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        errorLog(message.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// MHD_AcceptPolicyCallback: refuses every new connection once a shutdown has begun (the socket is closed at
    /// once, before any request is read).
    static let acceptPolicy: MHD_AcceptPolicyCallback = { cls, _, _ in
        guard let cls else { return .NO }
        let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
        return context.isStopping.load(ordering: .acquiring) ? .NO : .YES
    }

    /// MHD_NotifyConnectionCallback: creates the connection's state when a socket is accepted, frees it on close.
    /// The close notification comes before libmicrohttpd closes the socket, so ``RequestDeadlines`` never
    /// shuts down a descriptor that was already reused.
    static let connectionEvent: MHD_NotifyConnectionCallback = { cls, connection, socketContext, event in
        guard let cls, let socketContext else { return }
        let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
        switch event {
        case .CONNECTION_NOTIFY_STARTED:
            var socket: Int32 = -1
            if let connection, let info = cmhd_connection_info(connection, .CONNECTION_INFO_CONNECTION_FD) {
                socket = info.pointee.connect_fd
            }
            let state = ConnectionState(socket: socket)
            socketContext.pointee = Unmanaged.passRetained(state).toOpaque()
            if socket >= 0 { context.deadlines?.register(state) }
            context.counters.withLock { $0.connections += 1 }
        case .CONNECTION_NOTIFY_CLOSED:
            if let current = socketContext.pointee {
                let state = Unmanaged<ConnectionState>.fromOpaque(current)
                context.deadlines?.unregister(state.takeUnretainedValue())
                state.release()
                socketContext.pointee = nil
                context.counters.withLock { $0.connections -= 1 }
            }
        default:
            break
        }
    }

    @inline(__always)
    private static func queue(_ response: PreparedResponse, on connection: OpaquePointer, state: ConnectionState)
        -> MHD_Result
    {
        queue(handle: response.handle, status: response.status, on: connection, state: state)
    }

    /// Queues `handle`; a refusal (MHD_NO) closes the connection, which is all MHD allows then.
    @inline(__always)
    private static func queue(handle: OpaquePointer, status: Int, on connection: OpaquePointer, state: ConnectionState)
        -> MHD_Result
    {
        do {
            try MHDCall.check(
                MHD_queue_response(connection, UInt32(status), handle), .callFailed("MHD_queue_response"))
        } catch {
            return .NO
        }
        state.responseQueued = true
        return .YES
    }

    /// The request's `Content-Length` as a number; 0 when absent, `Int.max` when not a valid number.
    private static func announcedLength(_ connection: OpaquePointer) -> Int {
        var value: UnsafePointer<CChar>? = nil
        var size = 0
        let found = MHD_lookup_connection_value_n(
            connection, .HEADER_KIND, "Content-Length", 14, &value, &size)
        guard found == .YES, let value, size > 0 else { return 0 }
        var total = 0
        for i in 0..<size {
            let digit = Int(UInt8(bitPattern: value[i])) - 48
            guard (0...9).contains(digit) else { return 0 }  // MHD itself rejects a malformed length
            let (times, o1) = total.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(digit)
            if o1 || o2 { return Int.max }
            total = sum
        }
        return total
    }
}
