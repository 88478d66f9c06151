/** Entry module of the pages without a game (the how-to-play pages): the shell, then the
 * figures' markers and the "your turn" step-through. */
import "../shell/boot.js";
import { initPage } from "../core/page.js";
import { initFigures } from "./figures.js";

initPage();
initFigures();
