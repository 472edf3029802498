// One holder at a time across this site's tabs (the Web Locks API): `work` (a function answering
// a promise) runs once the lock `name` is free and holds it until its promise settles; `signal`
// (optional) gives up waiting for it (an AbortError). A browser without Web Locks just runs it.
export function exclusive(name, work, signal) {
  if (!navigator.locks) return work();
  return navigator.locks.request(name, signal ? { signal } : {}, () => work());
}
