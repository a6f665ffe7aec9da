/** The service's name: the title of the OpenAPI document and of the browser pages. */
export const SERVICE_NAME = 'Lifecycle Carbon Footprint Service';
/** The service's version: in the OpenAPI document and in every export manifest (software_version). */
export const SERVICE_VERSION = '1.0.0';
