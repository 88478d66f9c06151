/** Entry module of the pages without a game (the how-to-play pages): the shell, then the
 * figures' markers and the "your turn" step-through. */
import { initFigures } from "./figures.js";
import { initPage } from "./page.js";

initPage();
initFigures();
