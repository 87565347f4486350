/**
 * Depthbook's page: wires the socket, the session, the notebook view, the toolbar and presenter mode.
 * The notebook to open comes from the address: `/n/<name or saved id>`; `/` is the start page listing them.
 */
import { StudioSocket } from './studio-socket.js';
import { SessionStore } from './session-store.js';
import { NotebookSession } from './notebook-session.js';
import { NotebookView } from './notebook-view.js';
import { AppToolbar } from './app-toolbar.js';
import { Presenter } from './presenter.js';
import { PhotoIntake } from './photo-intake.js';
import { installFileDrop } from './file-drop.js';
import { StartPage } from './start-page.js';
import { installEditKeys } from './edit-keys.js';
import { scrollToElement } from './scroll-to.js';
import { outputCell } from './notebook-graph.js';
import './draft-banner.js';
import './pinned-output.js';
import './notebook-problems.js';
import './widgets/zoom-dialog.js';

function targetFromPath(pathname) {
    const match = /^\/n\/([^/]+)\/?$/.exec(pathname);
    return match ? decodeURIComponent(match[1]) : '';
}

if (location.pathname === '/') {
    // The start page: every notebook, with its output on your photo.
    document.querySelector('.app-bar').hidden = true;
    document.querySelector('main').replaceChildren(new StartPage().attach());
} else {
    openNotebookPage();
}

function openNotebookPage() {
    const store = new SessionStore();
    const socket = new StudioSocket(StudioSocket.urlFor(location));
    const session = new NotebookSession(socket, store, targetFromPath(location.pathname));
    const view = document.querySelector('db-notebook').attach(session, store);
    const presenter = new Presenter(view);
    document.querySelector('db-toolbar').attach(session, presenter);
    document.querySelector('db-pinned').attach(session, presenter);
    document.querySelector('db-draft').attach(session);
    document.querySelector('db-problems').attach(session);
    installEditKeys(session.history);
    // A photo, a depth map or an export dropped anywhere on the page.
    installFileDrop(new PhotoIntake(session), session);

    // Bigger pictures (presenter mode, a wider window) want wider frames.
    let resizeTimer = null;
    const rerender = () => {
        clearTimeout(resizeTimer);
        resizeTimer = setTimeout(() => session.runAll(), 250);
    };
    presenter.addEventListener('change', rerender);
    window.addEventListener('resize', rerender);

    // The sticky bar's height (it wraps on narrower windows): cells scrolled to stop below it.
    const bar = document.querySelector('.app-bar');
    new ResizeObserver(() => document.documentElement.style.setProperty('--bar', `${Math.ceil(bar.getBoundingClientRect().height)}px`)).observe(bar);

    // `/n/<name>#<cell id>` opens with that cell at the top, held there while the cells above lay out. A follow
    // link (`?watch=`) opens on the notebook's result: the audience came for the picture, not the recipe's top.
    view.addEventListener('rendered', () => {
        const cell = decodeURIComponent(location.hash.slice(1)) || (session.role === 'watch' ? outputCell(session.notebook, session.graph) : '');
        const card = cell && view.querySelector(`db-cell[data-cell="${CSS.escape(cell)}"]`);
        if (card) scrollToElement(card);
    }, { once: true });

    // A refresh mid-drag must not lose the value being dragged.
    window.addEventListener('pagehide', () => session.persistNow());

    socket.connect();
}
