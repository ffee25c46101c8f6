// The phone's own records, kept in IndexedDB on the device and nowhere else:
//   - "answers": the entropy this phone sent for each roll request, keyed "CAMPAIGN:SEQ"
//     ({key, campaign, seq, character, words, entropy, status, roll, error, at});
//   - "witness": per campaign, the pinned campaign key, the newest checkpoint verified
//     ("campaign:ID") and the size of the last signed note the player kept in their files
//     ("saved:ID"); and the device's non-extractable Ed25519 key (a CryptoKey: IndexedDB
//     keeps it as it is, its private half never readable by any script).
// A browser keeps all of it per origin (scheme, host and port): at another address the
// phone starts with none of it.
const NAME = "campaign-ledger-phone";
const VERSION = 1;
const STORES = ["answers", "witness"];

let opened = null;

/** The database, opened once per page (made on first use). */
export function open() {
  if (opened) { return opened; }
  opened = new Promise(function (resolve, reject) {
    const request = indexedDB.open(NAME, VERSION);
    request.onupgradeneeded = function () {
      const db = request.result;
      for (const name of STORES) {
        if (!db.objectStoreNames.contains(name)) { db.createObjectStore(name, {keyPath: "key"}); }
      }
    };
    request.onsuccess = function () { resolve(request.result); };
    request.onerror = function () { opened = null; reject(request.error); };
  });
  return opened;
}

function run(store, mode, act) {
  return open().then(function (db) {
    return new Promise(function (resolve, reject) {
      const tx = db.transaction(store, mode);
      const request = act(tx.objectStore(store));
      tx.oncomplete = function () { resolve(request.result); };
      tx.onerror = function () { reject(tx.error); };
      tx.onabort = function () { reject(tx.error); };
    });
  });
}

/** The record under `key` in `store`, or undefined. */
export function get(store, key) { return run(store, "readonly", function (s) { return s.get(key); }); }
/** Keep `value` (its `key` field names it) in `store`. */
export function put(store, value) { return run(store, "readwrite", function (s) { return s.put(value); }); }
/** Every record of `store`. */
export function all(store) { return run(store, "readonly", function (s) { return s.getAll(); }); }
