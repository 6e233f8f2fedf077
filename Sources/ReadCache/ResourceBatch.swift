/// Resources copied from their source on one thread, to be checked (``keep(where:)``) and stored in a
/// ``ResourceIndex`` on another (``ResourceIndex/insert(_:)``): a bulk load's two halves run side by side. Each resource is copied
/// once, into the allocation the index keeps.
///
/// `@unchecked Sendable`: a batch moves whole from the thread that fills it to the one that stores it, and the
/// bytes of its resources are never written after ``append(key:etag:body:version:)``.
public struct ResourceBatch: @unchecked Sendable {
    fileprivate var resources: [ResourceBytes] = []

    /// An empty batch with room for `capacity` resources.
    public init(capacity: Int) {
        resources.reserveCapacity(capacity)
    }

    /// Copies one resource's bytes into the batch.
    public mutating func append(
        key: UnsafeRawBufferPointer, etag: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer, version: Int
    ) {
        resources.append(ResourceBytes.make(key: key, etag: etag, body: body, version: version))
    }

    /// How many resources the batch holds.
    public var count: Int { resources.count }

    /// Keeps only the resources `accept` accepts, given each one's ETag and body (a bulk load's check of every
    /// stored body against its ETag); returns the keys of those removed, in batch order.
    public mutating func keep(
        where accept: (_ etag: UnsafeRawBufferPointer, _ body: UnsafeRawBufferPointer) -> Bool
    ) -> [String] {
        var refused: [String] = []
        resources.removeAll { resource in
            let sound = resource.withETag { etag in resource.withBody { body in accept(etag, body) } }
            if !sound { refused.append(resource.withKey { String(decoding: $0, as: UTF8.self) }) }
            return !sound
        }
        return refused
    }
}

extension ResourceIndex {
    /// Stores the resources of `batch` as ``insert(key:etag:body:version:)`` would one by one (an older version
    /// never replaces a newer one), under one lock for the whole batch: readers may wait that long (a few
    /// milliseconds for thousands; meant for start-up, before any request).
    public func insert(_ batch: ResourceBatch) {
        insert(contentsOf: batch.resources)
    }
}
