// The service worker of `campaign serve`, served as /sw.js (scope: the whole site)
// with VERSION and ASSETS written in by the server (ledger/web/offline.py).
//
// - Pages a device may read offline (home, live log, sheets, recaps): network first; the
//   copy kept from the last visit when the table's laptop cannot be reached, marked
//   "Offline — showing ... as of HH:MM; nothing you enter now is recorded".
// - Static files: cache first, in a cache named after VERSION (a new version drops the old).
// - Never kept: a POST, the live stream, the API, roll forms, GM pages (/gm...), fragments.
// - A form sent while the laptop cannot be reached gets "Not recorded: ...", never a fake
//   "Recorded". Signing out (POST /logout), signing in (/a/...) and a page refused for want
//   of a session (403) forget every kept page: each device keeps only its own session's.
"use strict";

const VERSION = "__VERSION__";
const ASSETS = ["__ASSETS__"];
const STATIC = "ledger-static-" + VERSION;
const PAGES = "ledger-pages";
const KEEP = [/^\/$/, /^\/log$/, /^\/sheet\/[^/]+$/, /^\/recap\/\d+$/];
const NEVER = /^\/(gm|api|events|a|answer|roll|requests|logout|export)(\/|$|\.)/;
const UNREACHABLE = "the table's laptop cannot be reached";

function keepable(path) {
  return !NEVER.test(path) && KEEP.some(function (re) { return re.test(path); });
}

function escapeHtml(text) {
  return text.replace(/[&<>"']/g, function (c) {
    return {"&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;"}[c];
  });
}

function clock(ms) {
  const d = new Date(ms);
  const two = function (n) { return String(n).padStart(2, "0"); };
  return two(d.getHours()) + ":" + two(d.getMinutes());
}

function what(path) {
  if (path === "/log") { return "the log"; }
  if (path.startsWith("/sheet/")) { return "this sheet"; }
  if (path.startsWith("/recap/")) { return "this recap"; }
  return "this page";
}

// A page of its own (no campaign data): the site's stylesheet, one message, a way back.
function notice(status, title, text) {
  const body = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">" +
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">" +
    "<title>" + escapeHtml(title) + "</title><link rel=\"stylesheet\" href=\"/static/site.css\">" +
    "</head><body><main><h1>" + escapeHtml(title) + "</h1>" +
    "<p class=\"notice offline-note\" role=\"alert\">" + escapeHtml(text) + "</p>" +
    "<p><a class=\"button\" href=\"/log\">The live log</a></p></main></body></html>";
  return new Response(body, {
    status: status,
    headers: {"content-type": "text/html; charset=utf-8", "x-served-from": "service-worker"},
  });
}

async function forgetPages() {
  await caches.delete(PAGES);
}

self.addEventListener("install", function (event) {
  event.waitUntil((async function () {
    const cache = await caches.open(STATIC);
    // one by one: a file missing from this build must not stop the worker installing
    await Promise.all(ASSETS.map(function (url) {
      return cache.add(new Request(url, {credentials: "same-origin"})).catch(function () {});
    }));
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", function (event) {
  event.waitUntil((async function () {
    for (const name of await caches.keys()) {
      if (name !== STATIC && name !== PAGES) { await caches.delete(name); }
    }
    await self.clients.claim();
    // keep the pages already open (a first visit's page was fetched before this worker
    // could see it): the same as offline.js's "keep", should its message come too early
    const open = await self.clients.matchAll({type: "window", includeUncontrolled: true});
    await Promise.all(open.map(function (client) { return keepUrl(client.url); }));
  })());
});

// A page's own script (offline.js) asks for the page it was opened on to be kept: the
// first visit, before this worker controlled the page, is readable offline too.
self.addEventListener("message", function (event) {
  const data = event.data || {};
  if (data.type === "keep" && typeof data.url === "string") {
    event.waitUntil(keepUrl(data.url));
  } else if (data.type === "forget") {
    event.waitUntil(forgetPages());
  }
});

// Fetch and keep one page of this site, if it is one a device may read offline.
async function keepUrl(href) {
  const url = new URL(href, self.location.origin);
  if (url.origin !== self.location.origin || !keepable(url.pathname)) { return; }
  await page(new Request(url.href, {credentials: "same-origin"})).catch(function () {});
}

async function keep(request, response) {
  const headers = new Headers(response.headers);
  headers.set("x-kept-at", String(Date.now()));
  const body = await response.clone().arrayBuffer();
  const cache = await caches.open(PAGES);
  await cache.put(request.url, new Response(body, {status: 200, headers: headers}));
}

function isPage(response) {
  return response.ok && response.type === "basic" && !response.redirected &&
    (response.headers.get("content-type") || "").startsWith("text/html");
}

async function marked(kept, path) {
  const at = Number(kept.headers.get("x-kept-at")) || Date.now();
  const text = "Offline — showing " + what(path) + " as of " + clock(at) +
    "; nothing you enter now is recorded.";
  const note = "<p class=\"offline-note\" id=\"offline-note\" role=\"status\" data-kept-at=\"" +
    at + "\">" + escapeHtml(text) + " <a href=\"\" class=\"button\">Try again</a></p>";
  const html = (await kept.text()).replace(/<body[^>]*>/, function (tag) { return tag + note; });
  const headers = new Headers(kept.headers);
  headers.set("x-served-from", "cache");
  headers.delete("content-length");
  return new Response(html, {status: 200, headers: headers});
}

async function page(request) {
  const path = new URL(request.url).pathname;
  let response;
  try {
    response = await fetch(request);
  } catch (err) {
    const cache = await caches.open(PAGES);
    const kept = await cache.match(request.url) ||
      await cache.match(request.url, {ignoreSearch: true});
    if (kept) { return marked(kept, path); }
    return notice(503, "Offline", "Offline — " + UNREACHABLE + ", and " + what(path) +
      " was not kept on this device. Nothing you enter now is recorded.");
  }
  if (response.status === 403) {
    await forgetPages();  // no live session here any more
  } else if (isPage(response) && keepable(path)) {
    await keep(request, response);
  }
  return response;
}

async function send(request) {
  try {
    return await fetch(request);
  } catch (err) {
    const text = "Not recorded: " + UNREACHABLE + ". Nothing was saved: go back, and send it again " +
      "once the table is back.";
    if (request.mode === "navigate") { return notice(503, "Not recorded", text); }
    return new Response(JSON.stringify({ok: false, error: text}), {
      status: 503,
      headers: {"content-type": "application/json", "x-served-from": "service-worker"},
    });
  }
}

async function logout(request) {
  await forgetPages();  // this device forgets the pages even if the laptop is out of reach
  try {
    return await fetch(request);
  } catch (err) {
    return notice(503, "Signed out on this device",
      "This device forgot the pages it kept, but " + UNREACHABLE + ": sign out again " +
      "once the table is back to end the session there too.");
  }
}

async function asset(request) {
  const cache = await caches.open(STATIC);
  const kept = await cache.match(request);
  if (kept) { return kept; }
  const response = await fetch(request);
  if (response.ok && response.type === "basic") { await cache.put(request, response.clone()); }
  return response;
}

self.addEventListener("fetch", function (event) {
  const request = event.request;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) { return; }
  const path = url.pathname;
  if (request.method === "POST") {
    if (path === "/logout") {
      event.respondWith(logout(request));
    } else if (request.mode === "navigate" || /^\/(roll|answer)\//.test(path)) {
      event.respondWith(send(request));  // a form: never pretend it was recorded
    }
    return;  // anything else (the API, cosignatures): untouched, never kept
  }
  if (request.method !== "GET") { return; }
  if (path.startsWith("/static/") || path === "/sheet.css") {
    event.respondWith(asset(request));
  } else if (request.mode === "navigate") {
    if (/^\/a\//.test(path)) {
      event.respondWith(forgetPages().then(function () { return fetch(request); }).catch(
        function () { return notice(503, "Offline", "Offline — " + UNREACHABLE + "."); }));
    } else if (keepable(path)) {
      event.respondWith(page(request));
    } else {
      event.respondWith(fetch(request).catch(function () {
        return notice(503, "Offline", "Offline — " + UNREACHABLE +
          ". Nothing you enter now is recorded.");
      }));
    }
  }
  // the live stream, the API, fragments: straight to the network, never kept
});
