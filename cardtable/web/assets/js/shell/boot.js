/**
 * The features the page shell (templates/base.html) carries on every page, above core/: the
 * settings dialog's data tools (stats/data-admin.js) and "Your devices" section
 * (devices/section.js), and the signed-out dialog (devices/revoked.js). Every page's entry
 * module imports this module first; core/ imports no feature, so it asks for the signed-out
 * dialog with an event (`REVOKED_EVENT`, raised by core/api.js) that is answered here.
 */

import { REVOKED_EVENT } from "../core/api.js";
import { addBundle } from "../core/i18n.js";

// The data tools (export, delete): their strings load with the page's, and their module, which
// talks to the server, after this one.
if (document.getElementById("data-export")) {
  addBundle("data");
  import("../stats/data-admin.js");
}

// "Your devices" (docs/devices.md), loaded the same way.
if (document.getElementById("devices")) {
  addBundle("devices");
  import("../devices/section.js");
}

// The players quick play never seats this one with (docs/quickplay.md), loaded the same way;
// the "quick" strings serve the home page's quick-play box and the table's end panel too.
if (document.getElementById("qp-blocks")) {
  addBundle("quick");
  import("../quickplay/blocks.js");
}

// A signed-out device (`401 revoked`): the dialog, its module loaded the first time.
document.addEventListener(REVOKED_EVENT, () => {
  import("../devices/revoked.js").then((m) => m.showRevoked());
});
