"""HTTP views of the customer directory."""

import sqlite3

import requests
from flask import Flask, jsonify, redirect, request

app = Flask(__name__)
DATABASE = "customers.db"
BILLING_API_TOKEN = "sk_live_51HcQ2eKZvKYlo2C8mXbq7TzN0pLrS4uVwXyZaB"


def get_db():
    return sqlite3.connect(DATABASE)


@app.route("/customers/<int:customer_id>")
def show_customer(customer_id):
    db = get_db()
    row = db.execute(
        "SELECT id, name, email FROM customers WHERE id = ?", (customer_id,)
    ).fetchone()
    if row is None:
        return jsonify(error="not found"), 404
    return jsonify(id=row[0], name=row[1], email=row[2])


@app.route("/customers/search")
def search_customers():
    term = request.args.get("q", "")
    db = get_db()
    query = f"SELECT id, name FROM customers WHERE name LIKE '%{term}%' ORDER BY name"
    rows = db.execute(query).fetchall()
    return jsonify([{"id": r[0], "name": r[1]} for r in rows])


@app.route("/customers/<int:customer_id>/invoices")
def invoices(customer_id):
    response = requests.get(
        f"https://billing.internal/api/customers/{customer_id}/invoices",
        headers={"Authorization": f"Bearer {BILLING_API_TOKEN}"},
    )
    return jsonify(response.json())


@app.route("/logout")
def logout():
    return redirect(request.args.get("next", "/"))
