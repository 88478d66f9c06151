/**
 * The service worker (served as /sw.js, scope: the whole site; docs/web.md, "Installing the app").
 *
 * The server puts one line before this code: `self.CARDTABLE_SHELL`, the release (a hash of
 * every file the site is made of), the pages and versioned assets of the page shell, the
 * offline page and a notification's icons. A new release is therefore a new worker.
 *
 * - install: the whole shell of this release goes into the cache "cardtable-shell-<release>",
 *   beside the running release's cache; a page whose release header differs fails the install
 *   (the server changed meanwhile), which the browser retries with the newer worker.
 * - activate (when the user accepts the update, or once no page of the old release is open):
 *   the other releases' caches are deleted. Until then the old worker serves the old pages
 *   their old files, so no page mixes two releases.
 * - fetch: versioned assets (`?v=`) cache first; pages network first, then the cache, then the
 *   offline page; the manifest network first, then the cache; /api/ and everything else go to
 *   the network untouched and are never cached.
 * - push: a notification from the JSON `{title, body, url, tag}`; a tap focuses a tab showing
 *   that URL or opens one.
 */

const SHELL = self.CARDTABLE_SHELL;
const PREFIX = "cardtable-shell-";
const CACHE = PREFIX + SHELL.release;
const RELEASE_HEADER = "x-cardtable-release";
const SCOPE = new URL(self.registration.scope);
const absolute = (path) => new URL(path, SCOPE).href;
const PAGES = new Set(SHELL.pages.map(absolute));
const ASSETS = new Set(SHELL.assets.map(absolute));
const OFFLINE = absolute(SHELL.offline);
const MANIFEST = absolute(SHELL.manifest);

/** Fetches one page of this release (bypassing the HTTP cache) and stores it. */
async function precachePage(cache, url) {
  const response = await fetch(url, { cache: "no-cache" });
  if (!response.ok || response.headers.get(RELEASE_HEADER) !== SHELL.release) {
    throw new Error(`${url}: not a page of release ${SHELL.release}`);
  }
  await cache.put(url, response);
}

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      await Promise.all([...PAGES].map((url) => precachePage(cache, url)));
      await cache.addAll([MANIFEST, ...ASSETS]);
    })().catch(async (err) => {
      await caches.delete(CACHE);
      throw err;
    }),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      const names = await caches.keys();
      await Promise.all(names.filter((n) => n.startsWith(PREFIX) && n !== CACHE).map((n) => caches.delete(n)));
      if (self.registration.navigationPreload) await self.registration.navigationPreload.enable();
      await self.clients.claim();
    })(),
  );
});

self.addEventListener("message", (event) => {
  if (event.data?.type === "skip-waiting") self.skipWaiting();
});

async function page(event) {
  const cache = await caches.open(CACHE);
  try {
    const response = (await event.preloadResponse) || (await fetch(event.request));
    if (response.ok && response.headers.get(RELEASE_HEADER) === SHELL.release) {
      await cache.put(event.request, response.clone());
    }
    return response;
  } catch {
    return (await cache.match(event.request)) || (await cache.match(OFFLINE)) || Response.error();
  }
}

/** The manifest: the network's, else this release's copy (the browser asks for it offline too). */
async function manifest(request) {
  try {
    return await fetch(request);
  } catch {
    return (await (await caches.open(CACHE)).match(MANIFEST)) || Response.error();
  }
}

async function asset(request) {
  const cache = await caches.open(CACHE);
  const kept = await cache.match(request);
  if (kept) return kept;
  const response = await fetch(request);
  if (response.ok && ASSETS.has(request.url)) await cache.put(request, response.clone());
  return response;
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== SCOPE.origin || url.pathname.startsWith(`${SCOPE.pathname}api/`)) return;
  if (request.mode === "navigate") {
    event.respondWith(page(event));
  } else if (url.href === MANIFEST) {
    event.respondWith(manifest(request));
  } else if (url.searchParams.has("v")) {
    event.respondWith(asset(request));
  }
});

/** The URL a notification opens: the message's, if it is on this site; else the home page. */
function openUrl(given) {
  try {
    const url = new URL(given || SCOPE.href, SCOPE);
    return url.origin === SCOPE.origin ? url.href : SCOPE.href;
  } catch {
    return SCOPE.href;
  }
}

self.addEventListener("push", (event) => {
  let message = {};
  try {
    message = event.data ? event.data.json() : {};
  } catch {
    message = { body: event.data.text() };
  }
  const options = {
    body: String(message.body || ""),
    icon: absolute(SHELL.icon),
    badge: absolute(SHELL.badge),
    data: { url: openUrl(message.url) },
  };
  if (message.tag) {
    // A new message of the same tag (the same table) replaces the last one and alerts again.
    options.tag = String(message.tag);
    options.renotify = true;
  }
  event.waitUntil(self.registration.showNotification(String(message.title || "cardtable"), options));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = openUrl(event.notification.data?.url);
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
      const open = windows.find((w) => w.url === url);
      if (open) return open.focus();
      return self.clients.openWindow(url);
    })(),
  );
});

// The push service replaced or dropped the subscription: the worker cannot sign its request to
// the server (the device's id lives in the page's storage), so it asks the open pages, whose
// push module subscribes again through POST /api/push/subscriptions.
self.addEventListener("pushsubscriptionchange", (event) => {
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
      for (const w of windows) w.postMessage({ type: "push-subscription-change" });
    })(),
  );
});
