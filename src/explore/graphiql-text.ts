/** What GraphiQL's header editor starts with in place of a key: a query run with it is not sent. */
export const KEY_PLACEHOLDER = '<your API key>';

/** The result pane's answer to a query run without a key (answered in the page, nothing sent). */
export const NO_KEY_MESSAGE =
  `No API key yet: in the Headers tab below, replace ${KEY_PLACEHOLDER} with your key (svc_live_… or svc_test_…), then run the query again. ` +
  '`npx lcf quickstart` on the server makes one. Free and pro keys run the templates in the tabs; business and enterprise keys run any query.';
