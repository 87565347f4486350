/**
 * `POST /api/upload`: the file as the body; the server sniffs its format, decodes it whole and answers with
 * its upload id, its facts and, for a Depthbook export, the recipe it carries. A file over `maxBytes` (the
 * studio's `limits.maxUploadBytes` from `hello`) is refused here, before a byte of it is sent.
 * @returns {Promise<{upload: string, photo: object, notebook?: object}>}
 * @throws {Error} with the server's message when the upload is refused
 */
export async function postUpload(url, file, maxBytes = Infinity) {
    if (file.size > maxBytes) {
        throw new Error(`${file.name || 'the file'} is ${megabytes(file.size)}; this studio takes files of at most ${megabytes(maxBytes)}`);
    }
    let response;
    try {
        response = await fetch(url, { method: 'POST', body: file });
    } catch (error) {
        throw new Error(`the upload did not reach the server (${error.message})`);
    }
    let body = null;
    try {
        body = await response.json();
    } catch {
        // A body that is not JSON is reported by status below.
    }
    if (!response.ok || !body || typeof body.upload !== 'string') {
        const message = body?.error?.message ?? `the server answered ${response.status} ${response.statusText}`;
        throw new Error(message);
    }
    return body;
}

/** A size for people: "12.3 MB" (decimal megabytes, as file browsers show them). */
function megabytes(bytes) {
    return `${(bytes / 1e6).toFixed(bytes < 1e7 ? 1 : 0)} MB`;
}
