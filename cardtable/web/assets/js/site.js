/** Entry module of the pages without a game (the how-to-play pages). */
import { initPage } from "./page.js";

initPage();
