/** The handlers' name for dropping unknown fields; the walk is the one strict decoding uses (apimachinery/schema). */
export { dropUnknownFields } from '../../apimachinery/schema/unknown-fields.js';
