import Testing
@testable import DepthbookServer

/// Host allowlist, Origin check and token, decided from header values alone.
@Suite(.timeLimit(.minutes(30)))
struct AccessPolicyTests {
    @Test func loopbackNamesAndTheListenAddressAreAdmittedOnAnyPort() {
        let policy = AccessPolicy(listenHost: "127.0.0.1")
        for host in ["localhost", "localhost:8080", "LOCALHOST:1", "127.0.0.1:8080", "[::1]:8080", "[::1]", "localhost."] {
            #expect(policy.admits(host: host), "\(host)")
        }
        for host in ["evil.example:8080", "evil.example", "127.0.0.1.evil.example", "localhost.evil", "[::2]:80",
                     "127.0.0.2", "", "localhost:80:80", "localhost:http", "[::1", "[::1]x"] {
            #expect(!policy.admits(host: host), "\(host)")
        }
        #expect(!policy.admits(host: nil), "HTTP/1.1 requires Host")
    }

    @Test func namesAddedByTheOperator() {
        let policy = AccessPolicy(listenHost: "0.0.0.0", extraHosts: ["Studio.Example.org", "10.0.0.5"])
        #expect(policy.admits(host: "studio.example.org"))
        #expect(policy.admits(host: "studio.example.org.:443"))
        #expect(policy.admits(host: "10.0.0.5:8080"))
        #expect(policy.admits(host: "localhost:8080"))
        #expect(!policy.admits(host: "0.0.0.0:8080"), "the wildcard address is not a name anyone reaches the server by")
        #expect(AccessPolicy(listenHost: "192.168.1.7").admits(host: "192.168.1.7:9000"))
        #expect(AccessPolicy(listenHost: "::1").admits(host: "[::1]:9000"))
    }

    @Test func theRefusalNamesTheHostAndTheFlag() {
        let message = AccessPolicy(listenHost: "127.0.0.1").hostRefusal("Evil.Example:8080")
        #expect(message.contains("\"evil.example\"") && message.contains("--allow-host evil.example"))
        #expect(!AccessPolicy(listenHost: "127.0.0.1").hostRefusal("<script>x</script>").contains("<"), "nothing but a host name is echoed")
    }

    @Test func originMustMatchAnAdmittedHost() {
        let policy = AccessPolicy(listenHost: "127.0.0.1", allowedOrigins: ["https://studio.example.org"])
        #expect(policy.admits(origin: "http://127.0.0.1:8080", host: "127.0.0.1:8080"))
        #expect(policy.admits(origin: "https://studio.example.org", host: "10.0.0.1:8080"))
        #expect(policy.admits(origin: nil, host: "127.0.0.1:8080"), "tools send no Origin")
        #expect(!policy.admits(origin: "http://evil.example", host: "127.0.0.1:8080"))
        #expect(!policy.admits(origin: "http://127.0.0.1:9999", host: "127.0.0.1:8080"))
        #expect(!policy.admits(origin: "null", host: "127.0.0.1:8080"))
        // DNS rebinding: Origin and Host agree, but the name is not one the studio answers to.
        #expect(!policy.admits(origin: "http://evil.example:8080", host: "evil.example:8080"))
    }

    @Test func withoutATokenEveryoneIsGranted() {
        let policy = AccessPolicy(listenHost: "127.0.0.1")
        #expect(!policy.requiresToken)
        #expect(policy.grants(authorization: nil, cookie: nil, queryToken: nil))
    }

    @Test func theTokenIsAcceptedFromHeaderCookieOrQuery() {
        let token = "0123456789abcdef0123456789abcdef"
        let policy = AccessPolicy(listenHost: "127.0.0.1", token: token)
        #expect(policy.requiresToken)
        #expect(!policy.grants(authorization: nil, cookie: nil, queryToken: nil))
        #expect(policy.grants(authorization: "Bearer \(token)", cookie: nil, queryToken: nil))
        #expect(policy.grants(authorization: "bearer \(token)", cookie: nil, queryToken: nil))
        #expect(policy.grants(authorization: nil, cookie: "theme=dark; depthbook_token=\(token); x=1", queryToken: nil))
        #expect(policy.grants(authorization: nil, cookie: nil, queryToken: token))
        #expect(!policy.grants(authorization: "Bearer \(token)x", cookie: nil, queryToken: nil))
        #expect(!policy.grants(authorization: "Basic \(token)", cookie: nil, queryToken: nil))
        #expect(!policy.grants(authorization: nil, cookie: "other_token=\(token)", queryToken: nil))
        #expect(!policy.grants(authorization: nil, cookie: nil, queryToken: String(token.dropLast())))
        #expect(policy.grants(authorization: "Bearer wrong", cookie: nil, queryToken: token), "one right token is enough")
    }

    @Test func constantTimeComparison() {
        #expect(AccessPolicy.constantTimeEqual(Array("abc".utf8), Array("abc".utf8)))
        #expect(!AccessPolicy.constantTimeEqual(Array("abc".utf8), Array("abd".utf8)))
        #expect(!AccessPolicy.constantTimeEqual(Array("abc".utf8), Array("abcd".utf8)))
        #expect(!AccessPolicy.constantTimeEqual([], Array("a".utf8)))
        #expect(AccessPolicy.constantTimeEqual([], []))
    }

    @Test func theCookieIsHiddenFromScriptsAndOtherSites() {
        let cookie = AccessPolicy.cookie(for: "t0k")
        #expect(cookie.hasPrefix("depthbook_token=t0k;"))
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/"))
    }
}
