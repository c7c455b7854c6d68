const names = [
  'process', 'console', 'Buffer', 'URL', 'URLSearchParams', 'setTimeout', 'clearTimeout', 'setInterval',
  'clearInterval', 'setImmediate', 'queueMicrotask', 'fetch', 'Headers', 'Response', 'Request', 'AbortController',
  'AbortSignal', 'TextEncoder', 'TextDecoder', 'structuredClone', 'performance', 'require', 'module', '__dirname',
  '__filename', 'exports', 'global', 'globalThis',
];

export default Object.fromEntries(names.map((name) => [name, 'readonly']));
