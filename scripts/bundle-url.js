// Injected by scripts/bundle.js into the CommonJS bundle, where `bundle.url`
// stands in for `import.meta.url`: the URL of the bundle file itself. Made on
// first use, as few runs need it.
import { pathToFileURL } from "node:url";

let url;

export const __tendBundle = {
  get url() {
    url ??= pathToFileURL(__filename).href;
    return url;
  },
};
