// Installable and readable offline: registers the service worker (/sw.js, scope: the
// whole site) and, on a page it did not serve (the first visit), asks it to keep the page
// just opened, so even that one can be read offline. A page the worker served from its copy
// carries #offline-note (and the class "offline" on <html>, for the stylesheet); a form sent
// while the table's laptop cannot be reached gets the worker's "Not recorded" page. Signing out asks the worker to forget the
// pages it kept (it also does so itself when it sees POST /logout).
(function () {
  "use strict";
  if (!("serviceWorker" in navigator)) { return; }
  // Was this page fetched through the worker (which then kept it)? Not "is it controlled
  // now": a worker that claims the page after its fetch, before this script runs, controls
  // a page it never saw.
  var nav = window.performance && performance.getEntriesByType ?
    performance.getEntriesByType("navigation")[0] : null;
  var throughWorker = nav ? nav.workerStart > 0 : !!navigator.serviceWorker.controller;
  navigator.serviceWorker.register("/sw.js", {scope: "/"}).then(function () {
    return navigator.serviceWorker.ready;
  }).then(function (registration) {
    if (!throughWorker && registration.active && !document.getElementById("offline-note")) {
      registration.active.postMessage({type: "keep", url: location.pathname + location.search});
    }
  }).catch(function () { /* no worker (not a secure context): the site works as before */ });
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (form.matches && form.matches("form.logout") && navigator.serviceWorker.controller) {
      navigator.serviceWorker.controller.postMessage({type: "forget"});
    }
  }, true);
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", mark);
  } else {
    mark();
  }
  function mark() {
    if (!document.getElementById("offline-note")) { return; }
    document.documentElement.classList.add("offline");
    document.title = "Offline · " + document.title;  // the tab and the app switcher say so too
  }
}());
