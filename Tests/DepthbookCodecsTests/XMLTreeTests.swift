import Testing

@testable import DepthbookCodecs

/// The element tree XMP reading builds from Foundation's `XMLParser`: namespaces resolved by scope, several
/// top-level packets, and malformed input as a typed error.
@Suite(.timeLimit(.minutes(30)))
struct XMLTreeTests {
    @Test func namespacesResolveByScope() throws {
        let text = """
        \u{FEFF}<?xml version="1.0" encoding="UTF-8"?>
        <a:root xmlns:a="urn:one/" xmlns="urn:default/" a:x="1" plain="2" xml:lang="en">
          <child><a:inner xmlns:a="urn:two/" a:y="3">t&amp;u</a:inner></child>
        </a:root>
        <second xmlns="urn:three/"/>
        """
        let roots = try XMLTreeParser.parse(text)
        #expect(roots.map(\.namespace) == ["urn:one/", "urn:three/"])
        #expect(roots.map(\.localName) == ["root", "second"])
        let root = roots[0]
        #expect(root.attribute("urn:one/", "x") == "1")
        #expect(root.attribute("", "plain") == "2")
        #expect(root.attribute(XMPNamespace.xml, "lang") == "en")
        #expect(root.attributes.count == 3)
        let child = root.children[0]
        #expect(child.is("urn:default/", "child"))
        let inner = child.children[0]
        #expect(inner.is("urn:two/", "inner"))
        #expect(inner.attribute("urn:two/", "y") == "3")
        #expect(inner.text == "t&u")
    }

    @Test(arguments: ["<a p:x=\"1\"/>", "<a><b></a>", "<a/> <?xml version=\"1.0\"?>", "<a>\u{0}</a>"])
    func malformedIsBadMetadata(_ text: String) {
        #expect {
            try XMLTreeParser.parse(text)
        } throws: { error in
            guard case PhotoError.badMetadata = error else { return false }
            return true
        }
    }
}
