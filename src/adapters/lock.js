// One holder at a time across this site's tabs (the Web Locks API): `work` (a function answering
// a promise) runs once the lock `name` is free and holds it until its promise settles. A browser
// without Web Locks just runs it.
export function exclusive(name, work) {
  return navigator.locks ? navigator.locks.request(name, () => work()) : work();
}
