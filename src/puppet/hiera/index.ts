/** Hiera 5 (filled in by the Hiera work): environment and module layers, backends, merges, lookup(). */
export {};
