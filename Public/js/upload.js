/**
 * `POST /api/upload`: the file as the body; the server sniffs its format, decodes it whole and answers with
 * its upload id, its facts and, for a Depthbook export, the recipe it carries.
 * @returns {Promise<{upload: string, photo: object, notebook?: object}>}
 * @throws {Error} with the server's message when the upload is refused
 */
export async function postUpload(url, file) {
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
