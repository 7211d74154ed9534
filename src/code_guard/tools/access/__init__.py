"""The access-control tool: authorization, authentication and CSRF checks a change takes away."""
