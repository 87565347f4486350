/**
 * Decodes the server's binary frames (docs/protocol.md, "Binary frames"):
 * 4 bytes big-endian header length N, N bytes of UTF-8 JSON header, then the JPEG bytes.
 * The page never looks inside the JPEG; it only wraps the bytes in a Blob for an <img>.
 */

/** Thrown when a binary message does not have the documented layout. */
export class FrameFormatError extends Error {}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * @param {ArrayBuffer} buffer one binary WebSocket message
 * @returns {{header: object, jpeg: Blob, bytes: number}}
 */
export function decodeFrame(buffer) {
    if (!(buffer instanceof ArrayBuffer) || buffer.byteLength < 4) {
        throw new FrameFormatError('binary frame shorter than its 4-byte header length');
    }
    const headerLength = new DataView(buffer).getUint32(0, false);
    if (headerLength === 0 || 4 + headerLength > buffer.byteLength) {
        throw new FrameFormatError(`binary frame header length ${headerLength} does not fit in ${buffer.byteLength} bytes`);
    }
    let header;
    try {
        header = JSON.parse(utf8.decode(new Uint8Array(buffer, 4, headerLength)));
    } catch (error) {
        throw new FrameFormatError(`binary frame header is not JSON: ${error.message}`);
    }
    if (header === null || typeof header !== 'object' || typeof header.cell !== 'string' || !Number.isFinite(header.seq)) {
        throw new FrameFormatError('binary frame header lacks "cell" or "seq"');
    }
    const jpegBytes = buffer.byteLength - 4 - headerLength;
    const jpeg = new Blob([new Uint8Array(buffer, 4 + headerLength)], { type: 'image/jpeg' });
    return { header, jpeg, bytes: jpegBytes };
}
