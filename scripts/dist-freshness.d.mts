/** Whether the clone at `root` (a `file:` URL ending in "/") has a dist/ built after its last source change. */
export function distIsFresh(root: URL): boolean;
