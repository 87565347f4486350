import Testing
@testable import DepthbookServer

/// A connection's outbox: replies and events all go out in order, except a message a newer one under the same
/// key made stale before it was sent.
@Suite struct OutboxTests {
    static func texts(_ connection: ClientConnection) -> [String] {
        var sent: [String] = []
        while let message = connection.nextMessage() {
            if case .text(let bytes) = message { sent.append(String(decoding: bytes, as: UTF8.self)) }
        }
        return sent
    }

    @Test func aNewerStateReplacesAnUnsentOneAndGoesAfterWhatCameBetween() {
        let connection = ClientConnection(id: 1) { _ in }
        connection.sendLatest(Array("params 1".utf8), key: "params")
        connection.sendText(Array("reply".utf8))
        connection.sendLatest(Array("params 2".utf8), key: "params")
        connection.sendLatest(Array("other 1".utf8), key: "other")
        connection.sendLatest(Array("params 3".utf8), key: "params")
        #expect(Self.texts(connection) == ["reply", "other 1", "params 3"])
        #expect(!connection.hasOutput)

        // Once sent, a state is not taken back: the next one simply follows.
        connection.sendLatest(Array("params 4".utf8), key: "params")
        #expect(Self.texts(connection) == ["params 4"])
    }

    /// The bytes waiting count only what is still to go: a watcher that falls behind during a long drag holds one
    /// state, so it is not cut off for the states it was spared.
    @Test func replacedStatesDoNotCountTowardsTheLimit() {
        let connection = ClientConnection(id: 1, outboxLimit: 1000) { _ in }
        for k in 0..<50 { connection.sendLatest(Array(repeating: UInt8(ascii: "a"), count: 100 + k), key: "params") }
        #expect(!connection.isCutOff)
        #expect(Self.texts(connection).map(\.count) == [149])
        for _ in 0..<11 { connection.sendText(Array(repeating: UInt8(ascii: "b"), count: 100)) }
        #expect(connection.isCutOff, "texts sent with no key all wait, and past the limit the client is cut off")
    }
}
