/** The service's version: in the OpenAPI document and in every export manifest (software_version). */
export const SERVICE_VERSION = '1.0.0';
