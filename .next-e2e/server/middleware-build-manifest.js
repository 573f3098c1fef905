globalThis.__BUILD_MANIFEST = {
  "pages": {
    "/_app": []
  },
  "devFiles": [],
  "polyfillFiles": [
    "static/chunks/0cz1d0mv5g_q7.js"
  ],
  "lowPriorityFiles": [
    "static/5C1-kt5R7ojQRNZPMJEmt/_buildManifest.js",
    "static/5C1-kt5R7ojQRNZPMJEmt/_ssgManifest.js",
    "static/5C1-kt5R7ojQRNZPMJEmt/_clientMiddlewareManifest.js"
  ],
  "rootMainFiles": [
    "static/chunks/0j1we3cwg31qe.js",
    "static/chunks/0r51zsmcn189w.js",
    "static/chunks/39_j1bdzreq0m.js",
    "static/chunks/turbopack-077hmtqrhcoji.js"
  ],
  "rootMainFilesTree": {},
  "pagesChunkGroupBootstrapParams": {
    "/page": {
      "otherChunks": [
        "static/chunks/0j1we3cwg31qe.js",
        "static/chunks/0r51zsmcn189w.js",
        "static/chunks/39_j1bdzreq0m.js"
      ],
      "runtimeModuleIds": [
        94553
      ]
    },
    "/_not-found/page": {
      "otherChunks": [
        "static/chunks/0j1we3cwg31qe.js",
        "static/chunks/0r51zsmcn189w.js",
        "static/chunks/39_j1bdzreq0m.js"
      ],
      "runtimeModuleIds": [
        94553
      ]
    },
    "/_global-error/page": {
      "otherChunks": [
        "static/chunks/0j1we3cwg31qe.js",
        "static/chunks/0r51zsmcn189w.js",
        "static/chunks/39_j1bdzreq0m.js"
      ],
      "runtimeModuleIds": [
        94553
      ]
    }
  },
  "chunkLoadingGlobal": "TURBOPACK"
};
