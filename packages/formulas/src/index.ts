export { parseFormula, FormulaSyntaxError, MAX_FORMULA_DEPTH, MAX_FORMULA_LENGTH } from './parse.js';
export { checkFormula, baseTypeOf, SYSTEM_IDENTIFIERS } from './check.js';
export type { FormulaCheck, FormulaClasses } from './check.js';
export { evaluate } from './evaluate.js';
export type { FormulaContext, FormulaLink, FormulaRecord } from './evaluate.js';
export { FUNCTIONS, SYS_INFO_KEYS, DATE_DIFF_UNITS } from './functions.js';
export type { FormulaBaseType, FormulaEnvironment, FormulaType } from './functions.js';
export type { FormulaJson, FormulaValue } from './values.js';
export { toText } from './values.js';
