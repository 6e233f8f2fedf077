#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `If-None-Match` evaluation for `GET` (RFC 9110 §13.1.2) over raw header bytes, allocating nothing: the
/// read path runs it on every conditional request, including the common stale-ETag case after a rotation.
enum IfNoneMatch {
    /// Whether `header` (the field value) matches `etag` (a strong entity tag, quotes included) by the weak
    /// comparison: `*`, or any member of the comma-separated list equal to `etag` once an optional `W/` prefix
    /// and the optional whitespace around it are set aside.
    static func matches(_ header: UnsafeRawBufferPointer, etag: UnsafeRawBufferPointer) -> Bool {
        // The usual case: the client sends back exactly the ETag it was given.
        if header.count == etag.count, header.count > 0, memcmp(header.baseAddress!, etag.baseAddress!, etag.count) == 0
        {
            return true
        }
        var index = 0
        let end = header.count
        while index < end {
            // One list member: skip optional whitespace, find the next comma, trim trailing whitespace.
            while index < end, header[index] == 0x20 || header[index] == 0x09 { index += 1 }
            var stop = index
            while stop < end, header[stop] != 0x2C { stop += 1 }
            var last = stop
            while last > index, header[last - 1] == 0x20 || header[last - 1] == 0x09 { last -= 1 }
            var first = index
            if last - first == 1, header[first] == 0x2A { return true }  // "*"
            if last - first >= 2, header[first] == 0x57, header[first + 1] == 0x2F { first += 2 }  // "W/"
            if last - first == etag.count, etag.count > 0,
                memcmp(header.baseAddress! + first, etag.baseAddress!, etag.count) == 0
            {
                return true
            }
            index = stop + 1
        }
        return false
    }
}
