// The settings table (settings.js reads it): one row per setting of the page, with its
// control, its RunConfig field, its URL key and how its control shows the value, in the manner
// of TF Playground's state.ts. What is valid comes from Rust; a control's ends and choices are
// the page's own.
import { deltaText } from '../core/shown.js';

// How a range slider's position maps to a value and back.
export const SCALES = new Map(
  Object.entries({
    linear: { toValue: (s) => +s.toFixed(4), toSlider: (v) => v },
    log3: { toValue: (s) => +(10 ** s).toPrecision(3), toSlider: Math.log10 },
    logInt: { toValue: (s) => Math.max(1, Math.round(10 ** s)), toSlider: Math.log10 },
    int: { toValue: (s) => Math.round(s), toSlider: (v) => v },
    pow10: { toValue: (s) => 10 ** Math.round(s), toSlider: (v) => Math.round(Math.log10(v)) },
  }),
);

// The table. `kind`: slider (with `scale` and `fmt` for its label), select, number or check.
// `field`: the RunConfig field it sets (absent: a page setting). `switch`: the check row that
// turns an optional field on (off: the field is null and the box keeps its number). `url`: its
// key in a link (absent: never in a link). `whole`: the box takes whole numbers within its own
// min and max. `hideForOwnData`: never written into a link of a run on a student's file.
// `none`: a select's choice that leaves the optional field out of the config (null in a part).
export const ROWS = [
  {
    key: 'sigma',
    control: 'sigma',
    field: 'sigma',
    url: 'sigma',
    kind: 'slider',
    scale: 'linear',
    fmt: (v) => v.toFixed(2),
  },
  { key: 'clip', control: 'clip', field: 'clip', url: 'clip', kind: 'slider', scale: 'log3' },
  {
    key: 'lot_size',
    control: 'lot-size',
    field: 'lot_size',
    url: 'lot_size',
    kind: 'slider',
    scale: 'logInt',
    clampToEnds: true,
  },
  { key: 'lr', control: 'lr', field: 'lr', url: 'lr', kind: 'slider', scale: 'log3' },
  {
    key: 'epochs',
    control: 'epochs',
    field: 'epochs',
    url: 'epochs',
    kind: 'slider',
    scale: 'int',
  },
  {
    key: 'delta',
    control: 'delta',
    field: 'delta',
    url: 'delta',
    kind: 'slider',
    scale: 'pow10',
    fmt: deltaText,
  },
  {
    key: 'dataset',
    control: 'dataset',
    field: 'dataset',
    url: 'dataset',
    kind: 'select',
    // Written as `own` (the file is never in a link): the reader is told its run is not on it
    // and that the link's other settings are used on the page's data set (readLinkValue).
  },
  { key: 'model', control: 'model', field: 'model', url: 'model', kind: 'select' },
  {
    key: 'groups',
    control: 'groups',
    field: 'groups',
    url: 'groups',
    kind: 'select',
    none: 'none',
    hideForOwnData: true,
  },
  { key: 'report', control: 'report', field: 'report', url: 'report', kind: 'select' },
  {
    key: 'amplification',
    control: 'amplification',
    field: 'amplification',
    url: 'amp',
    kind: 'select',
  },
  {
    key: 'budget_accountant',
    control: 'budget-accountant',
    field: 'budget_accountant',
    url: 'budget_acc',
    urlWith: 'budget_epsilon',
    kind: 'select',
  },
  {
    key: 'seed',
    control: 'seed',
    field: 'seed',
    url: 'seed',
    kind: 'number',
    whole: true,
    hideForOwnData: true,
  },
  { key: 'fixed_seed', control: 'fixed-seed', kind: 'check' },
  { key: 'pca_on', control: 'pca-on', kind: 'check' },
  { key: 'pca', control: 'pca-k', field: 'pca', switch: 'pca_on', url: 'pca', kind: 'number' },
  {
    key: 'pca_sigma',
    control: 'pca-sigma',
    field: 'pca_sigma',
    url: 'pca_sigma',
    urlWith: 'pca',
    kind: 'number',
  },
  { key: 'adapt_on', control: 'adapt-on', kind: 'check' },
  {
    key: 'clip_quantile',
    control: 'adapt-quantile',
    field: 'clip_quantile',
    switch: 'adapt_on',
    url: 'adapt',
    kind: 'number',
  },
  { key: 'until_budget', control: 'until-budget', kind: 'check' },
  {
    key: 'budget_epsilon',
    control: 'budget-eps',
    field: 'budget_epsilon',
    switch: 'until_budget',
    url: 'budget', // a run its budget stops is that run in a link too
    // off, the box is the σ chart's target ε: in a link as `target`, as a page setting is
    urlOff: 'target',
    kind: 'number',
  },
  { key: 'workers', control: 'workers', kind: 'number' },
  // `fresh`: back to the page's own value with every link opened (Settings.reset), as a fresh
  // load: the audit lesson's 300 runs a side stayed for the next lesson's audits. (The workers
  // are the machine's choice and stay.) A page setting in a link (no `field`: not the run's):
  // written where it is not the page's own value (Settings.pageParams), so a lecturer's lowered
  // count reaches the students' audits and the "from N runs a side" they read.
  {
    key: 'audit_runs',
    control: 'audit-runs',
    kind: 'number',
    fresh: true,
    url: 'audit_runs',
    whole: true,
  },
];

export const BY_KEY = new Map(ROWS.map((r) => [r.key, r]));
export const BY_FIELD = new Map(ROWS.filter((r) => r.field).map((r) => [r.field, r]));
// How row `row`'s slider maps its position to a value and back.
export const scaleOf = (row) => SCALES.get(row.scale);
