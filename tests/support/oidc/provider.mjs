// A real OpenID Connect provider for playsite's tests, on 127.0.0.1 over plain http.
// Configured by environment: OIDC_PORT, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET.
// Anyone may sign in under any login name (the provider's development login form);
// the subject is the login name. Prints "ready <issuer>" once listening.
import Provider from 'oidc-provider';

const port = Number(process.env.OIDC_PORT);
const issuer = `http://127.0.0.1:${port}`;

const configuration = {
  clients: [{
    client_id: process.env.OIDC_CLIENT_ID,
    client_secret: process.env.OIDC_CLIENT_SECRET,
    // "native" makes a loopback redirect URI match on any port (RFC 8252, 7.3): the test
    // servers listen on ports chosen at run time.
    application_type: 'native',
    redirect_uris: ['http://127.0.0.1/auth/callback'],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
    id_token_signed_response_alg: 'RS256',
  }],
  pkce: { required: () => true },
  features: { devInteractions: { enabled: true } },
  scopes: ['openid', 'profile', 'email'],
  claims: { openid: ['sub'], profile: ['preferred_username'], email: ['email'] },
  conformIdTokenClaims: false, // put the profile claims in the id_token itself
  async findAccount(ctx, sub) {
    return {
      accountId: sub,
      async claims() {
        return { sub, preferred_username: sub, email: `${sub}@example.test` };
      },
    };
  },
  ttl: { AuthorizationCode: 60, IdToken: 300, AccessToken: 300, Interaction: 300, Session: 600, Grant: 600 },
};

const provider = new Provider(issuer, configuration);
provider.on('server_error', (ctx, error) => console.error('provider error:', error.message));
provider.listen(port, '127.0.0.1', () => console.log(`ready ${issuer}`));
