import PinSetAdminAPI

extension SetRequest {
    /// Decodes a JSON body; a 400 ``ServiceError`` whose detail names the offending member otherwise.
    public static func decode(json: [UInt8]) throws(ServiceError) -> SetRequest {
        do throws(RequestBodyError) { return try SetRequest(json: json) } catch { throw ServiceError(error) }
    }
}

extension PinsRequest {
    /// Decodes a JSON body; a 400 ``ServiceError`` whose detail names the offending member otherwise.
    public static func decode(json: [UInt8]) throws(ServiceError) -> PinsRequest {
        do throws(RequestBodyError) { return try PinsRequest(json: json) } catch { throw ServiceError(error) }
    }
}

extension ServiceError {
    /// A 400 for a refused request body.
    public init(_ error: RequestBodyError) {
        self.init(.badRequest, error.detail)
    }
}
