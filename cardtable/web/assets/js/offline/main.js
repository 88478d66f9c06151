/**
 * The offline page (templates/offline.html): the service worker shows it in place of a page it
 * could not fetch, at that page's own address, so Retry loads the address again.
 */

import "../shell/boot.js";
import { addBundle } from "../core/i18n.js";
import { initPage } from "../core/page.js";

addBundle("app");
await initPage();
document.getElementById("offline-retry").addEventListener("click", () => window.location.reload());
