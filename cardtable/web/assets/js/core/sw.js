/**
 * Registers the service worker (/sw.js, docs/web.md "Installing the app") from every page, and
 * offers a new release when one is ready.
 *
 * A new release's worker installs beside the running one and waits: the open page keeps the
 * files it started with. The page then shows "A new version is ready" with a Reload button
 * (#app-update in templates/base.html); pressing it lets the new worker take over and every
 * open page of the site reloads once, onto the new release. Nothing reloads by itself in the
 * middle of a game. Closing every tab of the site activates the new worker as well.
 *
 * The worker's messages are passed on as DOM events on `document`: `PUSH_RESUBSCRIBE_EVENT`
 * when the push service replaced the subscription (the push module subscribes again).
 */

export const PUSH_RESUBSCRIBE_EVENT = "cardtable:push-subscription-change";

function offerUpdate(registration) {
  const notice = document.getElementById("app-update");
  const button = document.getElementById("app-update-reload");
  if (!notice || !button) return;
  notice.hidden = false;
  button.onclick = () => {
    button.disabled = true;
    registration.waiting?.postMessage({ type: "skip-waiting" });
  };
}

function watchForUpdates(registration) {
  // A worker waiting already (installed while another page of the site was open).
  if (registration.waiting && navigator.serviceWorker.controller) offerUpdate(registration);
  registration.addEventListener("updatefound", () => {
    const installing = registration.installing;
    installing?.addEventListener("statechange", () => {
      // "installed" with a controller: an update; without one, the first install.
      if (installing.state === "installed" && navigator.serviceWorker.controller) offerUpdate(registration);
    });
  });
}

/** Registers the worker; resolves to its registration, or null where there is none. */
export async function registerServiceWorker() {
  if (!("serviceWorker" in navigator)) return null;
  const container = navigator.serviceWorker;
  let controlled = Boolean(container.controller);
  let reloading = false;
  container.addEventListener("controllerchange", () => {
    // The first install takes control of the page that installed it: nothing to reload.
    if (!controlled) {
      controlled = true;
      return;
    }
    if (reloading) return;
    reloading = true;
    window.location.reload();
  });
  container.addEventListener("message", (event) => {
    if (event.data?.type === "push-subscription-change") document.dispatchEvent(new Event(PUSH_RESUBSCRIBE_EVENT));
  });
  try {
    const registration = await container.register(new URL("../../../sw.js", import.meta.url).pathname);
    watchForUpdates(registration);
    return registration;
  } catch {
    // No worker (private mode, a browser that refuses it): the site works as before, online.
    return null;
  }
}
