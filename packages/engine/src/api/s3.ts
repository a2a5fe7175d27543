/** The engine API's types for reaching object storage (README "Object storage"). Types only. */

/** How to reach object storage; credentials come from the environment and AWS's shared files only. */
export interface S3Options {
  /** The S3 service's URL (`--endpoint-url`), for servers other than AWS; else AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL. */
  endpointUrl?: string;
  /** A profile of ~/.aws/credentials and ~/.aws/config (else AWS_PROFILE, else `default`). */
  profile?: string;
}
