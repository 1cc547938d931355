users:
  - alice
  - bob
web:
  port: 8080
  lookup:
    package: nginx-full
