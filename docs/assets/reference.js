// Starts Redoc on the document inlined in the page. Nothing is fetched: the document is in the
// page and Redoc's bundle sits next to it.
/* global Redoc -- the standalone bundle loaded before this script defines it */
(function () {
  'use strict';
  var source = document.getElementById('openapi-document');
  var target = document.getElementById('redoc');
  if (!source || !target || typeof Redoc === 'undefined') return;
  var spec = JSON.parse(source.textContent);
  var mono = 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace';
  var sans = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';
  Redoc.init(
    spec,
    {
      hideDownloadButton: false,
      downloadFileName: target.getAttribute('data-download') || 'openapi.json',
      downloadDefinitionUrl: target.getAttribute('data-download') || 'openapi.json',
      scrollYOffset: 'header.topbar',
      expandResponses: '200,201,202',
      jsonSampleExpandLevel: 3,
      requiredPropsFirst: true,
      pathInMiddlePanel: true,
      showObjectSchemaExamples: true,
      showExtensions: ['x-decision', 'x-spec-ref'],
      hideHostname: false,
      menuToggle: true,
      nativeScrollbars: false,
      theme: {
        colors: { primary: { main: '#b4441f' } },
        typography: {
          fontSize: '15px',
          fontFamily: sans,
          headings: { fontFamily: sans, fontWeight: '600' },
          code: { fontFamily: mono },
        },
        sidebar: { backgroundColor: '#f7f4f1' },
        rightPanel: { backgroundColor: '#2b2622' },
      },
    },
    target,
  );
})();
