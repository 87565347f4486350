/**
 * What people call cells and references, instead of their ids: "View of the photo's portrait matte" rather
 * than "View of photo.portraitEffectsMatte", an effect's title for a step. Ids still show beside titles.
 */
import { canonicalReference, referenceHead } from './notebook-graph.js';

export const PLANE_NAMES = {
    image: 'image', depth: 'depth', disparity: 'disparity', subject: 'subject from depth', portraitEffectsMatte: 'portrait matte', skin: 'skin matte',
    hair: 'hair matte', teeth: 'teeth matte', glasses: 'glasses matte', sky: 'sky matte',
};

/** A reference for people: "the photo's skin matte", or the title of the cell it names. */
export function referenceName(session, reference, depth = 0) {
    const canonical = canonicalReference(String(reference));
    if (canonical.startsWith('photo.')) {
        const plane = canonical.slice('photo.'.length);
        return `the photo's ${PLANE_NAMES[plane] ?? plane}`;
    }
    const cell = session.cell(referenceHead(canonical));
    return cell && depth < 8 ? cellTitle(session, cell, depth + 1) : String(reference);
}

/** The short form a picker shows: "Photo · skin matte", or "Noir · noir" (title · id). */
export function referenceLabel(session, reference) {
    const canonical = canonicalReference(String(reference));
    if (canonical.startsWith('photo.')) return `Photo · ${PLANE_NAMES[canonical.slice(6)] ?? canonical.slice(6)}`;
    const cell = session.cell(referenceHead(canonical));
    return cell ? `${cellTitle(session, cell)} · ${reference}` : String(reference);
}

/** A cell's title for its header, the pinned panel and the presenter's stage. */
export function cellTitle(session, cell, depth = 0) {
    switch (cell.kind) {
        case 'note': return 'Note';
        case 'photo': return `Photo: ${session.photoName() ?? 'an uploaded photo'}`;
        case 'view': return cell.input ? `View of ${referenceName(session, cell.input, depth)}` : 'View';
        case 'step': return session.catalog.get(cell.effect)?.title ?? String(cell.effect);
        case 'formula': return `Formula ${cell.id}`;
        default: return 'Unsupported cell';
    }
}
