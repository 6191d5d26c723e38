// HTTPS (issue 48): when the harness gives an app a certificate, the app serves its routes over
// TLS too, on its port + 1000 (4000–4014), beside the plain port. The files are made for the run
// and never committed; an app started without them serves plain HTTP only.

/** The variables naming the PEM files of the run's certificate and its private key. */
export const TLS_ENV = { cert: "BENCH_TLS_CERT", key: "BENCH_TLS_KEY" } as const;

export const TLS_PORT_OFFSET = 1000;

/** The port an app serves HTTPS on. */
export const tlsPort = (port: number): number => port + TLS_PORT_OFFSET;
